import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Connection, Keypair, Transaction } from "@solana/web3.js";
import { initializePoolInstructions, NATIVE_MINT, poolTreeAddress } from "../src-shared/pool-program";
import { DEFAULT_MIN_DEPOSITS } from "../scripts/solana/min-deposit";
import { ensureRelayLookupTable, keypairSigner } from "../scripts/solana/relay-lookup-table";
import { confirmSignature } from "./confirm";
import type { LocalValidator } from "./validator";

const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";

/**
 * Everything a relay needs to run against this validator: a funded relayer
 * keypair (the pool program's upgrade authority, so the one key that may open
 * pools, and the pools' authority), the wSOL and USDC pools with pool:init's
 * minimum deposits (0.01 SOL, 1 USDC), the relay's address lookup table of
 * those pools (as `npm run pool:lookup-table` makes it: relay_swap then quotes
 * routes of up to 32 accounts), and a relay config file whose swap venue is
 * the validator's Jupiter-compatible API. Re-running on the same directory
 * reuses the keypair and its table.
 */
export async function prepareDemo(dir: string, validator: LocalValidator, programId: string): Promise<string> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const keyFile = path.join(dir, "relayer.json");
  const relayer = existsSync(keyFile) ? Keypair.fromSecretKey(Uint8Array.from(JSON.parse(readFileSync(keyFile, "utf8")) as number[])) : Keypair.generate();
  if (!existsSync(keyFile)) writeFileSync(keyFile, JSON.stringify(Array.from(relayer.secretKey)), { mode: 0o600 });
  // The relay refuses a keypair file others can read; one from an older run or a copy is made owner-only.
  chmodSync(keyFile, 0o600);
  await validator.airdrop(relayer.publicKey.toBase58(), 100_000_000_000n);
  // initialize_pool accepts only the program's upgrade authority (issue 25); LiteSVM deploys with none.
  await validator.setUpgradeAuthority(relayer.publicKey.toBase58(), programId);

  const connection = new Connection(validator.rpcUrl, "confirmed");
  for (const mint of [NATIVE_MINT, USDC]) {
    if (validator.ledger.getAccount(poolTreeAddress(programId, mint))) continue;
    await validator.createMint(mint, mint === USDC ? 6 : 9);
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash("confirmed");
    const tx = new Transaction({ feePayer: relayer.publicKey, blockhash, lastValidBlockHeight }).add(
      // initialize_pool and the extend_pool calls that grow the tree to its full size, in one transaction.
      ...initializePoolInstructions({ programId, authority: relayer.publicKey.toBase58(), mint, minDeposit: DEFAULT_MIN_DEPOSITS[mint]! }),
    );
    tx.sign(relayer);
    const signature = await connection.sendRawTransaction(tx.serialize());
    await confirmSignature(connection, signature, lastValidBlockHeight);
  }

  // The relay's own lookup table of the pools' fixed accounts; its address derives from the relayer's key here, so a re-run finds it.
  const { table } = await ensureRelayLookupTable(connection, keypairSigner(relayer), { programId, mints: [NATIVE_MINT, USDC] });

  const configFile = path.join(dir, "relay.json");
  const config = {
    dataDir: path.join(dir, "relay-data"),
    // relay_swap and /jupiter quote from the validator's Jupiter-compatible API over its cp-swap pools.
    // The validator's cp-swap program is the venue's program here (allowlisted next to Jupiter v6's).
    jupiter: { baseUrl: validator.jupiterUrl, programIds: ["JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4", "CpSwap11111111111111111111111111111111111111"] },
    networks: {
      mainnet: {
        backend: "solana",
        // A local test ledger: the development verifying key is allowed here, never on a real cluster (docs/security.md).
        allowDevelopmentVerifyingKey: true,
        rpcUrl: validator.rpcUrl,
        wsUrl: validator.wsUrl,
        programId,
        pools: [NATIVE_MINT, USDC],
        // Demo amounts are small: the rent of a nullifier account exceeds their fee.
        solana: { relayerKeypairPath: keyFile, allowLoss: true, lookupTables: [table] },
      },
    },
  };
  writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`);
  return configFile;
}
