/**
 * Opens pools of a deployed pool program: per mint, initialize_pool and the
 * extend_pool calls that grow its tree to full size, in one transaction,
 * signed and paid by the authority. Since issue 25 the program lets only its
 * upgrade authority (ProgramData) open a pool, so the keypair must be both
 * the program's upgrade authority and the relay's fee payer (the relay signs
 * reverts as the pool's authority). Each pool stores its minimum deposit
 * (--min-deposit, base units; by default 0.01 SOL of wrapped SOL and 1 USDC
 * or USDT, scripts/solana/min-deposit.ts), the least a deposit must bring.
 *
 * Before sending anything it checks who the upgrade authority is, and for a
 * pool that exists who its authority is: a pool opened by another key is
 * reported and the run fails (exit 1), since this relay cannot revert its
 * deposits. docs/pool-program.md "Deploying to devnet" walks through it.
 *
 *   npm run pool:init -- --rpc https://api.devnet.solana.com --program <id> \
 *     --keypair /etc/relay/relayer.json --mint <mint> [--mint <mint> …] [--min-deposit <base units>]
 */
import { parseArgs } from "node:util";
import { Connection, PublicKey, Transaction, type TransactionInstruction } from "@solana/web3.js";
import {
  BPF_LOADER_UPGRADEABLE_ID,
  MAX_PERMITTED_DATA_INCREASE,
  TOKEN_PROGRAM_ID,
  TREE_ACCOUNT_OFFSETS,
  TREE_ACCOUNT_SIZE,
  decodeProgramDataHeader,
  extendPoolInstruction,
  initializePoolInstructions,
  poolTreeAddress,
  poolVaultAddress,
  programDataAddress,
} from "../../src-shared/pool-program";
import { encodeBase58 } from "../../src-shared/encoding/base58";
import { readKeypairFile } from "../../src-shared/node/keypair-file";
import { checkPoolCommandArgs, confirmed } from "./cli";
import { minDepositFor, parseMinDeposit } from "./min-deposit";

const USAGE =
  "usage: npm run pool:init -- --rpc <url> --program <program id> --keypair <upgrade authority keypair file> --mint <mint> [--mint <mint> …] [--min-deposit <base units>]";

/** Exit codes: 0 every pool is open and ours, 1 a check or a transaction failed (or a pool is not ours), 2 usage. */
function fail(message: string, code = 2): never {
  console.error(`error: ${message}${code === 2 ? `\n${USAGE}` : ""}`);
  process.exit(code);
}

/** A tree's authority and minimum deposit, read at their offsets (a tree still growing toward full size has both). */
function treeTerms(data: Uint8Array): { authority: string; minDeposit: bigint | null } {
  const authority = encodeBase58(data.subarray(TREE_ACCOUNT_OFFSETS.authority, TREE_ACCOUNT_OFFSETS.authority + 32));
  const at = TREE_ACCOUNT_OFFSETS.minDeposit;
  // A tree of an older layout (before issue 25: 4,353 bytes) has no minimum there.
  const minDeposit = data.length >= at + 8 && data.length > 4353 ? new DataView(data.buffer, data.byteOffset + at, 8).getBigUint64(0, true) : null;
  return { authority, minDeposit };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rpc: { type: "string" },
      program: { type: "string" },
      keypair: { type: "string" },
      mint: { type: "string", multiple: true },
      "min-deposit": { type: "string" },
      help: { type: "boolean" },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const args = checkPoolCommandArgs(values, fail);
  const mints = args.mints;
  let given: bigint | undefined;
  if (values["min-deposit"] !== undefined) {
    const parsed = parseMinDeposit(values["min-deposit"]);
    if (!parsed.ok) fail(parsed.error);
    given = parsed.value;
  }
  const minimums = new Map<string, bigint>();
  for (const m of mints) {
    const min = minDepositFor(m, given);
    if (min === null) fail(`--min-deposit is required for ${m}: there is no default minimum for it (the defaults: 0.01 SOL of wrapped SOL, 1 USDC, 1 USDT)`);
    minimums.set(m, min);
  }

  const authority = readKeypairFile(args.keypair);
  const origin = new URL(args.rpc).origin;
  const connection = new Connection(args.rpc, "confirmed");
  const program = await connection.getAccountInfo(new PublicKey(args.program));
  if (!program?.executable) fail(`no executable program at ${args.program} on ${origin}: deploy programs/pool/pool.so first`, 1);
  console.log(`signer (the relay's fee payer, the pools' authority): ${authority.address}`);

  // initialize_pool accepts only the upgrade authority: say who it is before sending anything.
  const programData = await connection.getAccountInfo(new PublicKey(programDataAddress(args.program)));
  const header = programData && programData.owner.toBase58() === BPF_LOADER_UPGRADEABLE_ID ? decodeProgramDataHeader(programData.data) : null;
  const upgradeAuthority = header?.ok ? header.value.upgradeAuthority : undefined;
  const canOpen = upgradeAuthority !== undefined && upgradeAuthority !== null && encodeBase58(upgradeAuthority) === authority.address;
  if (upgradeAuthority === undefined) console.log(`program ${args.program}: not deployed upgradeable (no ProgramData), so no key can open a pool`);
  else if (upgradeAuthority === null) console.log(`program ${args.program}: its upgrade authority was dropped (immutable), so no key can open a pool`);
  else console.log(`program ${args.program}: upgrade authority ${encodeBase58(upgradeAuthority)}${canOpen ? " (the signer)" : ""}`);

  let failed = false;
  for (const mint of mints) {
    const minDeposit = minimums.get(mint)!;
    const mintAccount = await connection.getAccountInfo(new PublicKey(mint));
    if (!mintAccount || mintAccount.owner.toBase58() !== TOKEN_PROGRAM_ID) fail(`${mint} is not an SPL Token mint on ${origin}`, 1);
    const tree = poolTreeAddress(args.program, mint);
    const existing = await connection.getAccountInfo(new PublicKey(tree));
    let instructions: TransactionInstruction[];
    if (existing) {
      const terms = treeTerms(existing.data);
      if (terms.authority !== authority.address) {
        console.error(
          `${mint}: pool exists (tree ${tree}) but is NOT ours: its authority is ${terms.authority}, not the signer ${authority.address}. ` +
            `That key, not this relay, can revert its deposits; a pool's authority never changes. Use another program id, or that key as the relay's fee payer.`,
        );
        failed = true;
        continue;
      }
      const min = terms.minDeposit === null ? "no minimum deposit (an older program's layout)" : `minimum deposit ${terms.minDeposit}`;
      const asked =
        terms.minDeposit !== null && terms.minDeposit !== minDeposit ? ` (asked for ${minDeposit}: a pool's minimum is set once, at initialize)` : "";
      if (existing.data.length >= TREE_ACCOUNT_SIZE || terms.minDeposit === null) {
        console.log(`${mint}: pool exists (tree ${tree}), ours, ${min}${asked}; left as it is`);
        continue;
      }
      // Opened but not grown to full size (anyone may extend it): finish it, or no deposit can use it.
      const calls = Math.ceil((TREE_ACCOUNT_SIZE - existing.data.length) / MAX_PERMITTED_DATA_INCREASE);
      instructions = Array.from({ length: calls }, () => extendPoolInstruction({ programId: args.program, payer: authority.address, mint }));
      console.log(`${mint}: pool exists (tree ${tree}), ours, ${min}${asked}; its tree is ${existing.data.length} of ${TREE_ACCOUNT_SIZE} bytes: extending it`);
    } else {
      if (!canOpen) {
        console.error(
          `${mint}: not sent: only the program's upgrade authority may open a pool, and the signer ${authority.address} is not it` +
            (upgradeAuthority ? ` (${encodeBase58(upgradeAuthority)}): run with that keypair` : ""),
        );
        failed = true;
        continue;
      }
      instructions = initializePoolInstructions({ programId: args.program, authority: authority.address, mint, minDeposit });
    }
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash("confirmed");
    const tx = new Transaction({ feePayer: new PublicKey(authority.address), blockhash, lastValidBlockHeight }).add(...instructions);
    tx.addSignature(new PublicKey(authority.address), Buffer.from(authority.sign(tx.serializeMessage())));
    const signature = await connection.sendRawTransaction(tx.serialize());
    await confirmed(connection, signature, lastValidBlockHeight, 500);
    if (existing) console.log(`${mint}: extended to ${TREE_ACCOUNT_SIZE} bytes in ${signature}`);
    else console.log(`${mint}: initialized (tree ${tree}, vault ${poolVaultAddress(args.program, mint)}, minimum deposit ${minDeposit}) in ${signature}`);
  }
  if (failed) process.exit(1);
}

main().catch((e: unknown) => fail((e as Error).message, 1));
