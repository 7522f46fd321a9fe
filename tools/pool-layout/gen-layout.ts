/**
 * Writes programs/pool/src/layout.h, the pool program's byte layout (account sizes and field
 * offsets, instruction data lengths and argument offsets), from the codec's constants in
 * src-shared/pool-program/, the one source of truth for them:
 *
 *   npm run gen:pool-layout               # writes the header
 *   npm run gen:pool-layout -- --check    # exits 1 when the committed header is stale
 *
 * programs/pool/layout-header.test.ts fails while the committed header differs from what this
 * writes, and `npm run build:programs -- --check` then tells whether the program's bytes moved.
 */
import { fileURLToPath } from "node:url";
import {
  ASSERT_SWAP_OUT_OFFSETS,
  DEPOSIT_RECEIPT_OFFSETS,
  DEPOSIT_RECEIPT_SIZE,
  INSTRUCTION_DATA_SIZES,
  MAX_LEAVES,
  MINT_ACCOUNT_OFFSETS,
  MINT_ACCOUNT_SIZE,
  NO_LEAF_INDEX,
  NULLIFIER_ACCOUNT_SIZE,
  NULLIFIER_KINDS,
  PROGRAM_DATA_HEADER_SIZE,
  PROGRAM_DATA_OFFSETS,
  PROGRAM_DATA_STATE,
  PROOF_SIZE,
  RECEIPT_STATUSES,
  ROOT_HISTORY_SIZE,
  TOKEN_ACCOUNT_OFFSETS,
  TOKEN_ACCOUNT_SIZE,
  TREE_ACCOUNT_OFFSETS,
  TREE_ACCOUNT_SIZE,
  TREE_DEPTH,
  TREE_INITIAL_SIZE,
  WITHDRAW_ARGS_OFFSETS,
} from "../../src-shared/pool-program";
import { writeOrCheckGenerated } from "../lib/generated-file";

export const HEADER_PATH = fileURLToPath(new URL("../../programs/pool/src/layout.h", import.meta.url));

/** One `#define`: `u64` values are written as hex with ULL (the program compares them with u64s). */
interface Define {
  name: string;
  value: number;
  u64?: boolean;
  note?: string;
}

/** A group of defines under a comment saying why the layout is so. */
interface Section {
  comment?: string[];
  defines: Define[];
}

const kindOf = (list: readonly string[], name: string): number => {
  const i = list.indexOf(name);
  if (i < 0) throw new Error(`${name} is not in [${list.join(", ")}]`);
  return i;
};

const t = TREE_ACCOUNT_OFFSETS;
const r = DEPOSIT_RECEIPT_OFFSETS;
const wd = WITHDRAW_ARGS_OFFSETS;

/** The header's content, in the order the program's sources read best. */
const LAYOUT: readonly { title: string; sections: Section[] }[] = [
  {
    title: "Sizes and offsets (constants.ts, accounts.ts)",
    sections: [
      {
        defines: [
          { name: "TREE_DEPTH", value: TREE_DEPTH },
          { name: "ROOT_HISTORY_SIZE", value: ROOT_HISTORY_SIZE },
          { name: "MAX_LEAVES", value: MAX_LEAVES, u64: true },
          { name: "NO_LEAF_INDEX", value: NO_LEAF_INDEX, u64: true },
        ],
        comment: [
          "A root stays acceptable for ROOT_HISTORY_SIZE later insertions (issue 25: flushing a pending",
          "proof's root out of the ring must take that many deposits of at least the pool's minimum).",
          'nextIndex is a u32 and 0xFFFFFFFF means "no leaf" in a receipt, so at most 2^32 - 1 leaves.',
        ],
      },
      {
        comment: [
          "The ring is 32,000 of the 33,192 bytes, then F(mint). A CPI can create at most 10,240 bytes, so",
          "initialize_pool creates TREE_INITIAL_SIZE and extend_pool grows it by at most",
          "MAX_PERMITTED_DATA_INCREASE per instruction; every other instruction refuses a tree that is not",
          "TREE_ACCOUNT_SIZE. The fields other than the ring lie in the first 10,240 bytes, so",
          "initialize_pool writes them all. F(mint) = Poseidon(hi, lo) of the mint, which every deposit",
          "leaf and every withdrawal's public inputs need, is stored once (by the extend_pool that",
          "completes the tree) instead of hashed by each of them.",
        ],
        defines: [
          { name: "TREE_ACCOUNT_SIZE", value: TREE_ACCOUNT_SIZE },
          { name: "TREE_INITIAL_SIZE", value: TREE_INITIAL_SIZE },
          { name: "TREE_OFF_MINT", value: t.mint },
          { name: "TREE_OFF_AUTHORITY", value: t.authority },
          { name: "TREE_OFF_NEXT_INDEX", value: t.nextIndex },
          { name: "TREE_OFF_CURRENT_ROOT_INDEX", value: t.currentRootIndex },
          { name: "TREE_OFF_FILLED", value: t.filledSubtrees },
          { name: "TREE_OFF_DEPOSIT_COUNT", value: t.depositCount },
          { name: "TREE_OFF_TOTAL_DEPOSITED", value: t.totalDeposited },
          { name: "TREE_OFF_TOTAL_WITHDRAWN", value: t.totalWithdrawn },
          { name: "TREE_OFF_CREATED_SLOT", value: t.createdSlot },
          { name: "TREE_OFF_MIN_DEPOSIT", value: t.minDeposit },
          { name: "TREE_OFF_BUMP", value: t.bump },
          { name: "TREE_OFF_EVENT_AUTHORITY_BUMP", value: t.eventAuthorityBump },
          { name: "TREE_OFF_VAULT_BUMP", value: t.vaultBump, note: "in what was reserved: the vault's canonical bump" },
          { name: "TREE_OFF_ROOTS", value: t.roots },
          { name: "TREE_OFF_MINT_FIELD", value: t.mintField },
        ],
      },
      {
        comment: ["The upgradeable loader's ProgramData header: state u32 @0, slot u64, upgrade authority Option<Pubkey>."],
        defines: [
          { name: "PROGRAM_DATA_STATE", value: PROGRAM_DATA_STATE },
          { name: "PROGRAM_DATA_OFF_AUTHORITY_TAG", value: PROGRAM_DATA_OFFSETS.authorityTag },
          { name: "PROGRAM_DATA_OFF_AUTHORITY", value: PROGRAM_DATA_OFFSETS.authority },
          { name: "PROGRAM_DATA_HEADER_SIZE", value: PROGRAM_DATA_HEADER_SIZE },
        ],
      },
      {
        defines: [
          { name: "NULLIFIER_ACCOUNT_SIZE", value: NULLIFIER_ACCOUNT_SIZE, note: "disc 8 | mint 32 | nullifierHash 32 | kind u8 | slot u64" },
          { name: "NULLIFIER_KIND_WITHDRAW", value: kindOf(NULLIFIER_KINDS, "withdraw") },
          { name: "NULLIFIER_KIND_REVERT", value: kindOf(NULLIFIER_KINDS, "revert") },
        ],
      },
      {
        defines: [
          {
            name: "RECEIPT_SIZE",
            value: DEPOSIT_RECEIPT_SIZE,
            note: "disc | mint | depositor | commitment | amount | nonce | status | leafIndex | createdAt | bump",
          },
          { name: "RECEIPT_OFF_MINT", value: r.mint },
          { name: "RECEIPT_OFF_DEPOSITOR", value: r.depositor },
          { name: "RECEIPT_OFF_COMMITMENT", value: r.commitment },
          { name: "RECEIPT_OFF_AMOUNT", value: r.amount },
          { name: "RECEIPT_OFF_NONCE", value: r.nonce },
          { name: "RECEIPT_OFF_STATUS", value: r.status },
          { name: "RECEIPT_OFF_LEAF_INDEX", value: r.leafIndex },
          { name: "RECEIPT_OFF_CREATED_AT", value: r.createdAt },
          { name: "RECEIPT_OFF_BUMP", value: r.bump },
          { name: "RECEIPT_STATUS_INDEXED", value: kindOf(RECEIPT_STATUSES, "indexed") },
          { name: "RECEIPT_STATUS_FAILED", value: kindOf(RECEIPT_STATUSES, "failed") },
          { name: "RECEIPT_STATUS_REVERTED", value: kindOf(RECEIPT_STATUSES, "reverted") },
        ],
      },
      {
        comment: [`SPL Token account (${TOKEN_ACCOUNT_SIZE} bytes) and mint (${MINT_ACCOUNT_SIZE} bytes).`],
        defines: [
          { name: "TOKEN_ACCOUNT_SIZE", value: TOKEN_ACCOUNT_SIZE },
          { name: "TOKEN_OFF_MINT", value: TOKEN_ACCOUNT_OFFSETS.mint },
          { name: "TOKEN_OFF_OWNER", value: TOKEN_ACCOUNT_OFFSETS.owner },
          { name: "TOKEN_OFF_AMOUNT", value: TOKEN_ACCOUNT_OFFSETS.amount },
          { name: "TOKEN_OFF_STATE", value: TOKEN_ACCOUNT_OFFSETS.state },
          { name: "MINT_SIZE", value: MINT_ACCOUNT_SIZE },
          { name: "MINT_OFF_IS_INITIALIZED", value: MINT_ACCOUNT_OFFSETS.isInitialized },
        ],
      },
      { defines: [{ name: "PROOF_SIZE", value: PROOF_SIZE }] },
    ],
  },
  {
    title: "Instruction data (discriminator || Borsh args; exact lengths, instructions.ts)",
    sections: [
      {
        defines: [
          { name: "IX_INITIALIZE_POOL_LEN", value: INSTRUCTION_DATA_SIZES.initialize_pool, note: "minDeposit @8" },
          { name: "IX_EXTEND_POOL_LEN", value: INSTRUCTION_DATA_SIZES.extend_pool },
          { name: "IX_DEPOSIT_LEN", value: INSTRUCTION_DATA_SIZES.deposit, note: "precommitment @8, amount @40, nonce @48" },
          { name: "IX_WITHDRAW_LEN", value: INSTRUCTION_DATA_SIZES.withdraw, note: "the WD_OFF_* arguments up to changeCommitment" },
          { name: "IX_WITHDRAW_SWAP_LEN", value: INSTRUCTION_DATA_SIZES.withdraw_swap, note: "...withdraw's, then outputMint and minOut" },
          { name: "IX_ASSERT_SWAP_OUT_LEN", value: INSTRUCTION_DATA_SIZES.assert_swap_out, note: "the ASO_OFF_* arguments" },
          { name: "IX_REVERT_LEN", value: INSTRUCTION_DATA_SIZES.revert, note: "nonce @8" },
        ],
      },
      {
        defines: [
          { name: "WD_OFF_PROOF", value: wd.proof },
          { name: "WD_OFF_ROOT", value: wd.root },
          { name: "WD_OFF_NULLIFIER_HASH", value: wd.nullifierHash },
          { name: "WD_OFF_RECIPIENT", value: wd.recipient },
          { name: "WD_OFF_AMOUNT", value: wd.amount },
          { name: "WD_OFF_FEE", value: wd.fee },
          { name: "WD_OFF_CHANGE_COMMITMENT", value: wd.changeCommitment },
          { name: "WD_OFF_OUTPUT_MINT", value: wd.outputMint },
          { name: "WD_OFF_MIN_OUT", value: wd.minOut },
          { name: "ASO_OFF_MIN_OUT", value: ASSERT_SWAP_OUT_OFFSETS.minOut },
          { name: "ASO_OFF_NULLIFIER_HASH", value: ASSERT_SWAP_OUT_OFFSETS.nullifierHash },
        ],
      },
    ],
  },
];

function defineLine(d: Define): string {
  if (!Number.isSafeInteger(d.value) || d.value < 0) throw new Error(`${d.name}: ${d.value} is not a size or an offset`);
  const value = d.u64 ? `0x${d.value.toString(16).toUpperCase()}ULL` : String(d.value);
  return `#define ${d.name} ${value}${d.note ? ` /* ${d.note} */` : ""}`;
}

/** The header text: a pure function of src-shared/pool-program's constants. */
export function generateLayoutHeader(): string {
  const L: string[] = [
    "/*",
    " * GENERATED by tools/pool-layout/gen-layout.ts from src-shared/pool-program/ (the codec's",
    " * constants); do not edit: npm run gen:pool-layout rewrites it, and",
    " * programs/pool/layout-header.test.ts fails while it differs.",
    " */",
    "#ifndef POOL_LAYOUT_H",
    "#define POOL_LAYOUT_H",
  ];
  for (const part of LAYOUT) {
    L.push("", `/* ---- ${part.title} ---- */`);
    for (const s of part.sections) {
      L.push("");
      if (s.comment?.length === 1) L.push(`/* ${s.comment[0]} */`);
      else if (s.comment) L.push(...s.comment.map((line, i) => `${i === 0 ? "/* " : " * "}${line}`), " */");
      L.push(...s.defines.map(defineLine));
    }
  }
  L.push("", "#endif", "");
  return L.join("\n");
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeOrCheckGenerated(HEADER_PATH, generateLayoutHeader(), "npm run gen:pool-layout");
}
