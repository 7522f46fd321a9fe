/**
 * Creates or extends the relay's own address lookup table for a network
 * (docs/solana.md "Swaps"): per pool mint the mint, its tree and vault and the
 * relayer's token account of it, then the pool program's event authority, the
 * Instructions sysvar and the System, SPL Token and Associated Token programs.
 * With it configured (`networks.<n>.solana.lookupTables`), a relay_swap
 * transaction has room for Jupiter routes of 32 accounts instead of 12.
 *
 * The keypair is the relayer's (the relay's fee payer): it pays for the table
 * and is its authority, so it alone can extend it. Without --table a new
 * table is created; with --table the table is extended with the addresses it
 * lacks (nothing is sent when it holds them all). Either way the command waits
 * until the addresses can be used, then prints the table's address and the
 * config line. Exit codes: 0 done, 1 a check or a transaction failed, 2 usage.
 *
 *   npm run pool:lookup-table -- --rpc <url> --program <id> --keypair /etc/relay/relayer.json \
 *     --mint <mint> [--mint <mint> …] [--table <address>]
 */
import { parseArgs } from "node:util";
import { Connection, PublicKey } from "@solana/web3.js";
import { parsePublicKey } from "../../src-shared/encoding/base58";
import { poolTreeAddress } from "../../src-shared/pool-program";
import { readKeypairFile } from "../../src-shared/node/keypair-file";
import { checkPoolCommandArgs } from "./cli";
import { ensureRelayLookupTable } from "./relay-lookup-table";

const USAGE =
  "usage: npm run pool:lookup-table -- --rpc <url> --program <program id> --keypair <relayer keypair file> --mint <mint> [--mint <mint> …] [--table <existing table>]";

function fail(message: string, code = 2): never {
  console.error(`error: ${message}${code === 2 ? `\n${USAGE}` : ""}`);
  process.exit(code);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rpc: { type: "string" },
      program: { type: "string" },
      keypair: { type: "string" },
      mint: { type: "string", multiple: true },
      table: { type: "string" },
      help: { type: "boolean" },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const args = checkPoolCommandArgs(values, fail);
  const mints = args.mints;
  if (values.table !== undefined && !parsePublicKey(values.table).ok) fail(`--table ${values.table} is not a base58 public key`);

  const signer = readKeypairFile(args.keypair);
  const origin = new URL(args.rpc).origin;
  const connection = new Connection(args.rpc, "confirmed");
  const program = await connection.getAccountInfo(new PublicKey(args.program));
  if (!program?.executable) fail(`no executable program at ${args.program} on ${origin}`, 1);
  console.log(`signer (the relay's fee payer, the table's authority): ${signer.address}`);
  for (const m of mints) {
    // A table may hold a pool's addresses before the pool is opened; say so, it is likely a typo.
    if (!(await connection.getAccountInfo(new PublicKey(poolTreeAddress(args.program, m)))))
      console.log(`${m}: no pool yet (run pool:init); its addresses are added all the same`);
  }
  const r = await ensureRelayLookupTable(connection, signer, { programId: args.program, mints, table: values.table, log: (l) => console.log(l) });
  if (!r.created && r.added.length === 0) console.log(`lookup table ${r.table}: holds every address already; nothing sent`);
  console.log(`lookup table ${r.table}: ${r.addresses.length} addresses, usable now`);
  console.log(`config: "networks": { "<network>": { "solana": { "lookupTables": ["${r.table}"] } } }`);
  console.log(r.table);
}

main().catch((e: unknown) => fail((e as Error).message, 1));
