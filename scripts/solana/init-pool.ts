/**
 * Opens pools of a deployed pool program: one `initialize_pool` per mint,
 * signed and paid by the authority, which must be the relay's fee payer (the
 * relay signs reverts as the pool's authority). A pool that exists is left as
 * it is. docs/pool-program.md "Deploying to devnet" walks through it.
 *
 *   npm run pool:init -- --rpc https://api.devnet.solana.com --program <id> \
 *     --keypair /etc/relay/relayer.json --mint <mint> [--mint <mint> …]
 */
import { parseArgs } from "node:util";
import { Connection, PublicKey, Transaction } from "@solana/web3.js";
import { TOKEN_PROGRAM_ID, initializePoolInstruction, poolTreeAddress, poolVaultAddress } from "../../src-shared/pool-program";
import { parsePublicKey } from "../../src-shared/encoding/base58";
import { readKeypairFile } from "../../src-server/adapters/keys/keypair-file";

const USAGE = "usage: npm run pool:init -- --rpc <url> --program <program id> --keypair <authority keypair file> --mint <mint> [--mint <mint> …]";

function fail(message: string, code = 2): never {
  console.error(`error: ${message}\n${USAGE}`);
  process.exit(code);
}

async function confirmed(connection: Connection, signature: string, lastValidBlockHeight: number): Promise<void> {
  for (;;) {
    const status = (await connection.getSignatureStatuses([signature])).value[0];
    if (status?.err) throw new Error(`transaction ${signature} failed: ${JSON.stringify(status.err)}`);
    if (status?.confirmationStatus === "confirmed" || status?.confirmationStatus === "finalized") return;
    if ((await connection.getBlockHeight("confirmed")) > lastValidBlockHeight) throw new Error(`transaction ${signature} expired before it landed; run again`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rpc: { type: "string" },
      program: { type: "string" },
      keypair: { type: "string" },
      mint: { type: "string", multiple: true },
      help: { type: "boolean" },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  if (!values.rpc || !/^https?:\/\//.test(values.rpc)) fail("--rpc must be an http(s) URL");
  if (!values.program || !parsePublicKey(values.program).ok) fail("--program must be the program id (base58)");
  if (!values.keypair) fail("--keypair is required");
  const mints = values.mint ?? [];
  if (mints.length === 0) fail("at least one --mint is required");
  for (const m of mints) if (!parsePublicKey(m).ok) fail(`--mint ${m} is not a base58 public key`);

  const authority = readKeypairFile(values.keypair);
  const connection = new Connection(values.rpc, "confirmed");
  const program = await connection.getAccountInfo(new PublicKey(values.program));
  if (!program?.executable) fail(`no executable program at ${values.program} on ${new URL(values.rpc).origin}: deploy programs/pool/pool.so first`, 1);
  console.log(`authority (the relay's fee payer): ${authority.address}`);

  for (const mint of mints) {
    const mintAccount = await connection.getAccountInfo(new PublicKey(mint));
    if (!mintAccount || mintAccount.owner.toBase58() !== TOKEN_PROGRAM_ID) fail(`${mint} is not an SPL Token mint on ${new URL(values.rpc).origin}`, 1);
    const tree = poolTreeAddress(values.program, mint);
    if (await connection.getAccountInfo(new PublicKey(tree))) {
      console.log(`${mint}: pool exists (tree ${tree}); left as it is`);
      continue;
    }
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash("confirmed");
    const tx = new Transaction({ feePayer: new PublicKey(authority.address), blockhash, lastValidBlockHeight }).add(
      initializePoolInstruction({ programId: values.program, authority: authority.address, mint }),
    );
    tx.addSignature(new PublicKey(authority.address), Buffer.from(authority.sign(tx.serializeMessage())));
    const signature = await connection.sendRawTransaction(tx.serialize());
    await confirmed(connection, signature, lastValidBlockHeight);
    console.log(`${mint}: initialized (tree ${tree}, vault ${poolVaultAddress(values.program, mint)}) in ${signature}`);
  }
}

main().catch((e: unknown) => fail((e as Error).message, 1));
