/**
 * The C program's constants are the codec's (src-shared/pool-program), byte for byte: the
 * discriminators, program ids, field modulus, zero subtrees, account sizes and offsets,
 * instruction lengths, error codes with their names, and Anchor's framework codes. Read from
 * the sources, so a change on either side fails here before any transaction runs.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PublicKey } from "@solana/web3.js";
import { beforeAll, describe, expect, it } from "vitest";
import { createPoseidonHasher } from "../../src-shared/crypto/poseidon-wasm";
import { FIELD_MODULUS, bigIntToBytes32 } from "../../src-shared/encoding/field";
import {
  ACCOUNT_DISCRIMINATORS,
  ASSOCIATED_TOKEN_PROGRAM_ID,
  DEPOSIT_RECEIPT_SIZE,
  EVENT_DISCRIMINATORS,
  EVENT_IX_TAG,
  INSTRUCTION_DATA_SIZES,
  INSTRUCTION_DISCRIMINATORS,
  NULLIFIER_ACCOUNT_SIZE,
  POOL_ERRORS,
  PROOF_SIZE,
  ROOT_HISTORY_SIZE,
  SYSTEM_PROGRAM_ID,
  SYSVAR_INSTRUCTIONS_ID,
  TOKEN_ACCOUNT_OFFSETS,
  TOKEN_ACCOUNT_SIZE,
  TOKEN_PROGRAM_ID,
  TREE_ACCOUNT_OFFSETS,
  TREE_ACCOUNT_SIZE,
  TREE_INITIAL_SIZE,
  WITHDRAW_CHANGE_COMMITMENT_OFFSET,
  encodePoolInstruction,
  TREE_DEPTH,
} from "../../src-shared/pool-program";
import { zeroHashes } from "../../src-server/core/merkle/zeros";
import { ANCHOR_ERRORS } from "../../tests/oracle/localnet/runtime-helpers";

const SRC = join(__dirname, "src");
const read = (file: string) => readFileSync(join(SRC, file), "utf8");
/** pool.h and the headers it includes: the generated layout and the error codes. */
const headers = () => ["pool.h", "layout.h", "errors.h"].map(read).join("\n");

/** The bytes of a C array initializer `NAME[...] ... = { ... };` (hex or decimal). */
function bytesOf(source: string, name: string): number[] {
  const at = source.search(new RegExp(`\\b${name}\\b(\\[[^\\]]*\\])*\\s*(__attribute__\\(\\(aligned\\(8\\)\\)\\))?\\s*=`));
  if (at < 0) throw new Error(`${name} not found`);
  const body = source.slice(source.indexOf("{", at), source.indexOf("};", at));
  return [...body.replace(/\/\*.*?\*\//g, "").matchAll(/0x[0-9a-fA-F]+|\b\d+\b/g)].map((m) => Number(m[0]));
}

/** `#define NAME <number>` of pool.h or a header it includes. */
function define(name: string): number {
  const m = new RegExp(`#define ${name} (0x[0-9a-fA-F]+|\\d+)`).exec(headers());
  if (!m) throw new Error(`#define ${name} not found`);
  return Number(m[1]);
}

describe("programs/pool/src agrees with the codec", () => {
  let zeros: readonly Uint8Array[];
  beforeAll(async () => {
    zeros = zeroHashes(await createPoseidonHasher(), TREE_DEPTH);
  });

  it("instruction, account and event discriminators (consts.c)", () => {
    const consts = read("consts.c");
    const cases: [string, Readonly<Uint8Array>][] = [
      ...Object.entries(INSTRUCTION_DISCRIMINATORS).map(([n, d]) => [`DISC_IX_${n.toUpperCase()}`, d] as [string, Readonly<Uint8Array>]),
      ["DISC_TREE_ACCOUNT", ACCOUNT_DISCRIMINATORS.TreeAccount],
      ["DISC_NULLIFIER_ACCOUNT", ACCOUNT_DISCRIMINATORS.NullifierAccount],
      ["DISC_DEPOSIT_RECEIPT", ACCOUNT_DISCRIMINATORS.DepositReceipt],
      ["DISC_DEPOSIT_EVENT", EVENT_DISCRIMINATORS.DepositEvent],
      ["DISC_DEPOSIT_FAILED_EVENT", EVENT_DISCRIMINATORS.DepositFailedEvent],
      ["DISC_WITHDRAW_EVENT", EVENT_DISCRIMINATORS.WithdrawEvent],
      ["DISC_REVERT_EVENT", EVENT_DISCRIMINATORS.RevertEvent],
      ["EVENT_IX_TAG", EVENT_IX_TAG],
    ];
    expect(cases).toHaveLength(15);
    for (const [name, d] of cases) expect(bytesOf(consts, name), name).toEqual([...d]);
  });

  it("program ids and the field modulus (consts.c)", () => {
    const consts = read("consts.c");
    expect(bytesOf(consts, "TOKEN_PROGRAM_ID")).toEqual([...new PublicKey(TOKEN_PROGRAM_ID).toBytes()]);
    expect(bytesOf(consts, "ASSOCIATED_TOKEN_PROGRAM_ID")).toEqual([...new PublicKey(ASSOCIATED_TOKEN_PROGRAM_ID).toBytes()]);
    expect(bytesOf(consts, "SYSVAR_INSTRUCTIONS_ID")).toEqual([...new PublicKey(SYSVAR_INSTRUCTIONS_ID).toBytes()]);
    expect(new PublicKey(SYSTEM_PROGRAM_ID).toBytes().every((b) => b === 0)).toBe(true);
    expect(consts).toMatch(/const SolPubkey SYSTEM_PROGRAM_ID __attribute__\(\(aligned\(8\)\)\) = \{\{0\}\};/);
    expect(bytesOf(consts, "FIELD_MODULUS")).toEqual([...bigIntToBytes32(FIELD_MODULUS)]);
  });

  it("the zero subtrees Z[0..32] (merkle.c) are Poseidon's, as the relay's tree computes them", () => {
    const table = bytesOf(read("merkle.c"), "ZEROS");
    expect(table).toHaveLength(33 * 32);
    for (let i = 0; i <= TREE_DEPTH; i++) expect(table.slice(32 * i, 32 * i + 32), `Z[${i}]`).toEqual([...zeros[i]!]);
  });

  it("account sizes and offsets, instruction lengths (layout.h)", () => {
    expect(define("TREE_DEPTH")).toBe(TREE_DEPTH);
    expect(define("ROOT_HISTORY_SIZE")).toBe(ROOT_HISTORY_SIZE);
    expect(define("TREE_ACCOUNT_SIZE")).toBe(TREE_ACCOUNT_SIZE);
    expect(define("TREE_INITIAL_SIZE")).toBe(TREE_INITIAL_SIZE);
    expect(define("NULLIFIER_ACCOUNT_SIZE")).toBe(NULLIFIER_ACCOUNT_SIZE);
    expect(define("RECEIPT_SIZE")).toBe(DEPOSIT_RECEIPT_SIZE);
    expect(define("TOKEN_ACCOUNT_SIZE")).toBe(TOKEN_ACCOUNT_SIZE);
    expect(define("PROOF_SIZE")).toBe(PROOF_SIZE);
    const tree: [string, number][] = [
      ["TREE_OFF_MINT", TREE_ACCOUNT_OFFSETS.mint],
      ["TREE_OFF_AUTHORITY", TREE_ACCOUNT_OFFSETS.authority],
      ["TREE_OFF_NEXT_INDEX", TREE_ACCOUNT_OFFSETS.nextIndex],
      ["TREE_OFF_CURRENT_ROOT_INDEX", TREE_ACCOUNT_OFFSETS.currentRootIndex],
      ["TREE_OFF_ROOTS", TREE_ACCOUNT_OFFSETS.roots],
      ["TREE_OFF_FILLED", TREE_ACCOUNT_OFFSETS.filledSubtrees],
      ["TREE_OFF_DEPOSIT_COUNT", TREE_ACCOUNT_OFFSETS.depositCount],
      ["TREE_OFF_TOTAL_DEPOSITED", TREE_ACCOUNT_OFFSETS.totalDeposited],
      ["TREE_OFF_TOTAL_WITHDRAWN", TREE_ACCOUNT_OFFSETS.totalWithdrawn],
      ["TREE_OFF_CREATED_SLOT", TREE_ACCOUNT_OFFSETS.createdSlot],
      ["TREE_OFF_MIN_DEPOSIT", TREE_ACCOUNT_OFFSETS.minDeposit],
      ["TREE_OFF_BUMP", TREE_ACCOUNT_OFFSETS.bump],
      ["TREE_OFF_EVENT_AUTHORITY_BUMP", TREE_ACCOUNT_OFFSETS.eventAuthorityBump],
      ["TREE_OFF_VAULT_BUMP", TREE_ACCOUNT_OFFSETS.vaultBump],
      ["TREE_OFF_MINT_FIELD", TREE_ACCOUNT_OFFSETS.mintField],
      ["TOKEN_OFF_MINT", TOKEN_ACCOUNT_OFFSETS.mint],
      ["TOKEN_OFF_OWNER", TOKEN_ACCOUNT_OFFSETS.owner],
      ["TOKEN_OFF_AMOUNT", TOKEN_ACCOUNT_OFFSETS.amount],
      ["TOKEN_OFF_STATE", TOKEN_ACCOUNT_OFFSETS.state],
    ];
    for (const [name, offset] of tree) expect(define(name), name).toBe(offset);
    // DepositReceipt: disc 8 | mint 32 | depositor 32 | commitment 32 | amount 8 | nonce 8 | status 1 | leafIndex 4 | createdAt 8 | bump 1.
    expect([
      define("RECEIPT_OFF_MINT"),
      define("RECEIPT_OFF_DEPOSITOR"),
      define("RECEIPT_OFF_COMMITMENT"),
      define("RECEIPT_OFF_AMOUNT"),
      define("RECEIPT_OFF_NONCE"),
      define("RECEIPT_OFF_STATUS"),
      define("RECEIPT_OFF_LEAF_INDEX"),
      define("RECEIPT_OFF_CREATED_AT"),
      define("RECEIPT_OFF_BUMP"),
    ]).toEqual([8, 40, 72, 104, 112, 120, 121, 125, 133]);
    expect(define("IX_INITIALIZE_POOL_LEN")).toBe(INSTRUCTION_DATA_SIZES.initialize_pool);
    expect(define("IX_DEPOSIT_LEN")).toBe(INSTRUCTION_DATA_SIZES.deposit);
    expect(define("IX_WITHDRAW_LEN")).toBe(INSTRUCTION_DATA_SIZES.withdraw);
    expect(define("IX_WITHDRAW_SWAP_LEN")).toBe(INSTRUCTION_DATA_SIZES.withdraw_swap);
    expect(define("IX_ASSERT_SWAP_OUT_LEN")).toBe(INSTRUCTION_DATA_SIZES.assert_swap_out);
    expect(define("IX_REVERT_LEN")).toBe(INSTRUCTION_DATA_SIZES.revert);
    expect(define("IX_EXTEND_POOL_LEN")).toBe(INSTRUCTION_DATA_SIZES.extend_pool);
    // The arguments' offsets: the codec's data of a withdraw_swap with distinct bytes in every field.
    const data = encodePoolInstruction({
      name: "withdraw_swap",
      proof: new Uint8Array(256).fill(1),
      root: new Uint8Array(32).fill(2),
      nullifierHash: new Uint8Array(32).fill(3),
      recipient: new Uint8Array(32).fill(4),
      amount: 0x0505050505050505n,
      fee: 0x0606060606060606n,
      changeCommitment: new Uint8Array(32).fill(7),
      outputMint: new Uint8Array(32).fill(8),
      minOut: 0x0909090909090909n,
    });
    const at: [string, number][] = [
      ["WD_OFF_PROOF", 1],
      ["WD_OFF_ROOT", 2],
      ["WD_OFF_NULLIFIER_HASH", 3],
      ["WD_OFF_RECIPIENT", 4],
      ["WD_OFF_AMOUNT", 5],
      ["WD_OFF_FEE", 6],
      ["WD_OFF_CHANGE_COMMITMENT", 7],
      ["WD_OFF_OUTPUT_MINT", 8],
      ["WD_OFF_MIN_OUT", 9],
    ];
    for (const [name, byte] of at) {
      const off = define(name);
      expect(data[off], name).toBe(byte);
      expect(data[off - 1], name).not.toBe(byte);
    }
    expect(define("WD_OFF_CHANGE_COMMITMENT")).toBe(WITHDRAW_CHANGE_COMMITMENT_OFFSET);
    const assertData = encodePoolInstruction({ name: "assert_swap_out", minOut: 0x0101010101010101n, nullifierHash: new Uint8Array(32).fill(2) });
    expect([assertData[define("ASO_OFF_MIN_OUT")], assertData[define("ASO_OFF_NULLIFIER_HASH")], assertData[define("ASO_OFF_NULLIFIER_HASH") - 1]]).toEqual([
      1, 2, 1,
    ]);
  });

  it("every pool error: the code (errors.h) and the `Error: <Name>` line (errors.c) of errors.ts", () => {
    const errors = read("errors.c");
    const header = headers();
    const logged = new Map([...errors.matchAll(/case (ERR_\w+): line = "Error: (\w+)"/g)].map((m) => [m[2]!, m[1]!]));
    const fallback = /default: line = "Error: (\w+)"/.exec(errors)![1]!;
    const codeOf = (macro: string) => Number(new RegExp(`#define ${macro} (\\d+)`).exec(header)![1]);
    for (const [name, code] of Object.entries(POOL_ERRORS)) {
      if (name === fallback) {
        expect([...logged.values()].map(codeOf)).not.toContain(code);
        expect(codeOf("ERR_INVALID_INPUT")).toBe(code);
        continue;
      }
      expect(logged.get(name), name).toBeDefined();
      expect(codeOf(logged.get(name)!), name).toBe(code);
    }
    expect(logged.size + 1).toBe(Object.keys(POOL_ERRORS).length);
  });

  it("Anchor's framework codes and messages (errors.h, errors.c) are those of the TypeScript model's table", () => {
    const errors = read("errors.c");
    for (const [name, { code, message }] of Object.entries(ANCHOR_ERRORS)) {
      const m = new RegExp(`name = "${name}"; message = "([^"]*)"`).exec(errors);
      expect(m, name).not.toBeNull();
      expect(m![1], name).toBe(message);
      const macro =
        new RegExp(`case (AE_\\w+): name = "${name}"`).exec(errors)?.[1] ??
        (/default: name = "(\w+)"/.exec(errors)![1] === name ? "AE_ACCOUNT_NOT_INITIALIZED" : "");
      expect(define(macro), name).toBe(code);
    }
  });
});
