import { describe, expect, it } from "vitest";
import { toHex as hex } from "../encoding/bytes";
import {
  currentRoot,
  decodeDepositReceipt,
  decodeProgramDataHeader,
  decodeNullifierAccount,
  decodeTokenAccount,
  decodeTreeAccount,
  encodeDepositReceipt,
  encodeProgramDataHeader,
  encodeNullifierAccount,
  encodeTokenAccount,
  encodeTreeAccount,
  isKnownRoot,
  pushRoot,
  rootsOldestFirst,
  TREE_ACCOUNT_OFFSETS,
  type DepositReceiptData,
  type TreeAccountData,
} from "./accounts";
import { DEPOSIT_RECEIPT_SIZE, NULLIFIER_ACCOUNT_SIZE, ROOT_HISTORY_SIZE, TOKEN_ACCOUNT_SIZE, TREE_ACCOUNT_SIZE, TREE_DEPTH } from "./constants";

const fill = (b: number, n = 32): Uint8Array => new Uint8Array(n).fill(b);
const u32le = (b: Uint8Array, at: number): number => new DataView(b.buffer, b.byteOffset).getUint32(at, true);
const u64le = (b: Uint8Array, at: number): bigint => new DataView(b.buffer, b.byteOffset).getBigUint64(at, true);

function sampleTree(): TreeAccountData {
  const roots = Array.from({ length: ROOT_HISTORY_SIZE }, () => fill(0));
  roots[0] = fill(0xa0);
  roots[1] = fill(0xa1);
  roots[2] = fill(0xa2);
  return {
    mint: fill(0x01),
    authority: fill(0x02),
    nextIndex: 0x01020304,
    currentRootIndex: 2,
    roots,
    filledSubtrees: Array.from({ length: TREE_DEPTH }, (_, i) => fill(0xc0 + (i % 16))),
    depositCount: 9n,
    totalDeposited: 0x1122334455667788n,
    totalWithdrawn: 5n,
    createdSlot: 77n,
    minDeposit: 0x0a0b0c0dn,
    bump: 254,
    eventAuthorityBump: 251,
    vaultBump: 250,
    mintField: fill(0x3c),
  };
}

describe("TreeAccount", () => {
  it("is 33192 bytes with every field at the doc's offset, then the 1,000-root ring, then F(mint)", () => {
    const bytes = encodeTreeAccount(sampleTree());
    expect(bytes.length).toBe(TREE_ACCOUNT_SIZE);
    expect(TREE_ACCOUNT_SIZE).toBe(33192);
    expect(ROOT_HISTORY_SIZE).toBe(1000);
    expect(hex(bytes.subarray(0, 8))).toBe("d6266b234c854931");
    expect(TREE_ACCOUNT_OFFSETS).toMatchObject({
      nextIndex: 72,
      filledSubtrees: 80,
      depositCount: 1104,
      minDeposit: 1136,
      bump: 1144,
      eventAuthorityBump: 1145,
      vaultBump: 1146,
      reserved: 1147,
      roots: 1160,
      mintField: 33160,
    });
    expect(bytes.subarray(8, 40)).toEqual(fill(0x01));
    expect(bytes.subarray(40, 72)).toEqual(fill(0x02));
    expect(hex(bytes.subarray(72, 76))).toBe("04030201");
    expect(u32le(bytes, 76)).toBe(2);
    expect(bytes.subarray(80, 112)).toEqual(fill(0xc0));
    expect(bytes.subarray(80 + 31 * 32, 1104)).toEqual(fill(0xcf));
    expect(u64le(bytes, 1104)).toBe(9n);
    expect(hex(bytes.subarray(1112, 1120))).toBe("8877665544332211");
    expect(u64le(bytes, 1120)).toBe(5n);
    expect(u64le(bytes, 1128)).toBe(77n);
    expect(u64le(bytes, 1136)).toBe(0x0a0b0c0dn);
    expect(bytes[1144]).toBe(254);
    expect(bytes[1145]).toBe(251);
    expect(bytes[1146]).toBe(250);
    expect(bytes.subarray(1147, 1160)).toEqual(fill(0, 13));
    expect(bytes.subarray(1160, 1192)).toEqual(fill(0xa0));
    expect(bytes.subarray(1160 + 2 * 32, 1160 + 3 * 32)).toEqual(fill(0xa2));
    expect(bytes.subarray(1160 + 3 * 32, 33160)).toEqual(fill(0, 33160 - 1160 - 96));
    expect(bytes.subarray(33160)).toEqual(fill(0x3c));
  });
  it("decodes what it encodes", () => {
    const t = sampleTree();
    const back = decodeTreeAccount(encodeTreeAccount(t));
    expect(back).toEqual({ ok: true, value: t });
  });

  it("the current root is roots[currentRootIndex]; any non-zero slot is known, zero never", () => {
    const t = sampleTree();
    expect(currentRoot(t)).toEqual(fill(0xa2));
    expect(isKnownRoot(t, fill(0xa0))).toBe(true);
    expect(isKnownRoot(t, fill(0xa1))).toBe(true);
    expect(isKnownRoot(t, fill(0xa3))).toBe(false);
    expect(isKnownRoot(t, fill(0))).toBe(false);
  });

  it("pushRoot advances the ring and wraps after 1,000 roots, forgetting the oldest", () => {
    let t = sampleTree();
    t = pushRoot(t, fill(0xa3));
    expect(t.currentRootIndex).toBe(3);
    expect(currentRoot(t)).toEqual(fill(0xa3));
    expect(rootsOldestFirst(t).map((r) => r[0])).toEqual([0xa0, 0xa1, 0xa2, 0xa3]);
    const root = (i: number): Uint8Array => Uint8Array.from({ length: 32 }, (_, j) => (j < 2 ? (i >> (8 * j)) & 0xff : 0x5a));
    for (let i = 0; i < 997; i++) t = pushRoot(t, root(i));
    expect(t.currentRootIndex).toBe(0);
    expect(isKnownRoot(t, fill(0xa0))).toBe(false);
    expect(isKnownRoot(t, fill(0xa1))).toBe(true);
    expect(rootsOldestFirst(t).length).toBe(1000);
    expect(rootsOldestFirst(t)[0]).toEqual(fill(0xa1));
    expect(rootsOldestFirst(t)[999]).toEqual(root(996));
  });

  it("decode refuses a wrong size, a wrong discriminator and truncated data, saying which", () => {
    const bytes = encodeTreeAccount(sampleTree());
    expect(decodeTreeAccount(bytes.subarray(0, 33191))).toEqual({ ok: false, error: "TreeAccount: expected 33192 bytes, got 33191" });
    expect(decodeTreeAccount(new Uint8Array([...bytes, 0]))).toEqual({ ok: false, error: "TreeAccount: expected 33192 bytes, got 33193" });
    // A tree initialize_pool created that extend_pool has not grown yet is not a usable tree.
    expect(decodeTreeAccount(bytes.subarray(0, 10240))).toEqual({ ok: false, error: "TreeAccount: expected 33192 bytes, got 10240" });
    expect(decodeTreeAccount(bytes.subarray(0, 5))).toEqual({ ok: false, error: "TreeAccount: truncated (5 bytes, not even a discriminator)" });
    const wrong = bytes.slice();
    wrong[0] = wrong[0]! ^ 1;
    expect(decodeTreeAccount(wrong)).toEqual({ ok: false, error: "TreeAccount: wrong discriminator" });
    expect(decodeTreeAccount(encodeNullifierAccount({ mint: fill(1), nullifierHash: fill(2), kind: "withdraw", slot: 1n }))).toEqual({
      ok: false,
      error: "TreeAccount: wrong discriminator",
    });
    const badRing = bytes.slice();
    badRing.set([0xe8, 0x03], 76);
    expect(decodeTreeAccount(badRing)).toEqual({ ok: false, error: "TreeAccount: currentRootIndex 1000 is outside the ring of 1000" });
  });

  it("encode throws on a ring or frontier of the wrong length (a caller bug)", () => {
    expect(() => encodeTreeAccount({ ...sampleTree(), roots: [fill(1)] })).toThrow(RangeError);
    expect(() => encodeTreeAccount({ ...sampleTree(), filledSubtrees: [] })).toThrow(RangeError);
    expect(() => encodeTreeAccount({ ...sampleTree(), mint: fill(1, 31) })).toThrow("TreeAccount.mint: expected 32 bytes, got 31");
  });
});

describe("ProgramData header", () => {
  it("is state 3 u32 ‖ slot u64 ‖ Option<Pubkey> (45 bytes), the authority @13 after tag 1 @12", () => {
    const bytes = encodeProgramDataHeader({ slot: 0x0102n, upgradeAuthority: fill(0x07) });
    expect(bytes.length).toBe(45);
    expect(hex(bytes.subarray(0, 13))).toBe("03000000" + "0201000000000000" + "01");
    expect(bytes.subarray(13)).toEqual(fill(0x07));
    expect(decodeProgramDataHeader(bytes)).toEqual({ ok: true, value: { slot: 0x0102n, upgradeAuthority: fill(0x07) } });
  });

  it("a dropped authority is tag 0 and decodes as null; another state or a short account is refused", () => {
    const none = encodeProgramDataHeader({ slot: 5n, upgradeAuthority: null });
    expect(none[12]).toBe(0);
    expect(decodeProgramDataHeader(new Uint8Array([...none, 1, 2, 3]))).toEqual({ ok: true, value: { slot: 5n, upgradeAuthority: null } });
    const program = none.slice();
    program[0] = 2;
    expect(decodeProgramDataHeader(program)).toEqual({ ok: false, error: "ProgramData: state 2, not ProgramData (3)" });
    expect(decodeProgramDataHeader(none.subarray(0, 44)).ok).toBe(false);
  });
});

describe("NullifierAccount", () => {
  it("is discriminator ‖ mint ‖ nullifierHash ‖ kind u8 ‖ slot u64 (81 bytes)", () => {
    const bytes = encodeNullifierAccount({ mint: fill(0x01), nullifierHash: fill(0x02), kind: "revert", slot: 258n });
    expect(bytes.length).toBe(NULLIFIER_ACCOUNT_SIZE);
    expect(hex(bytes)).toBe("fa1feeb1d56230ac" + "01".repeat(32) + "02".repeat(32) + "01" + "0201000000000000");
    expect(decodeNullifierAccount(bytes)).toEqual({ ok: true, value: { mint: fill(0x01), nullifierHash: fill(0x02), kind: "revert", slot: 258n } });
    expect(decodeNullifierAccount(encodeNullifierAccount({ mint: fill(3), nullifierHash: fill(4), kind: "withdraw", slot: 0n }))).toMatchObject({
      ok: true,
      value: { kind: "withdraw" },
    });
  });

  it("decode refuses a wrong size and an unknown kind", () => {
    const bytes = encodeNullifierAccount({ mint: fill(0x01), nullifierHash: fill(0x02), kind: "revert", slot: 1n });
    expect(decodeNullifierAccount(bytes.subarray(0, 80))).toEqual({ ok: false, error: "NullifierAccount: expected 81 bytes, got 80" });
    const bad = bytes.slice();
    bad[72] = 2;
    expect(decodeNullifierAccount(bad)).toEqual({ ok: false, error: "NullifierAccount: unknown kind 2" });
  });
});

describe("DepositReceipt", () => {
  const receipt: DepositReceiptData = {
    mint: fill(0x01),
    depositor: fill(0x02),
    commitment: fill(0x03),
    amount: 1000n,
    nonce: 7n,
    status: "failed",
    leafIndex: null,
    createdAt: 1_700_000_000n,
    bump: 253,
  };

  it("is 134 bytes; a failed deposit's leafIndex is stored as 0xFFFFFFFF", () => {
    const bytes = encodeDepositReceipt(receipt);
    expect(bytes.length).toBe(DEPOSIT_RECEIPT_SIZE);
    expect(hex(bytes)).toBe(
      "40af18b78a6d464e" +
        "01".repeat(32) +
        "02".repeat(32) +
        "03".repeat(32) +
        "e803000000000000" +
        "0700000000000000" +
        "01" +
        "ffffffff" +
        "00f1536500000000" +
        "fd",
    );
    expect(decodeDepositReceipt(bytes)).toEqual({ ok: true, value: receipt });
  });

  it("an indexed receipt keeps its leaf index and a reverted one its status", () => {
    const indexed = { ...receipt, status: "indexed" as const, leafIndex: 0 };
    expect(decodeDepositReceipt(encodeDepositReceipt(indexed))).toEqual({ ok: true, value: indexed });
    const reverted = { ...receipt, status: "reverted" as const };
    expect(decodeDepositReceipt(encodeDepositReceipt(reverted))).toEqual({ ok: true, value: reverted });
    expect(() => encodeDepositReceipt({ ...receipt, leafIndex: 0xffffffff })).toThrow(RangeError);
  });

  it("decode refuses a wrong size, a wrong discriminator and an unknown status", () => {
    const bytes = encodeDepositReceipt(receipt);
    expect(decodeDepositReceipt(bytes.subarray(0, 100))).toEqual({ ok: false, error: "DepositReceipt: expected 134 bytes, got 100" });
    const wrong = bytes.slice();
    wrong[7] = wrong[7]! ^ 0xff;
    expect(decodeDepositReceipt(wrong)).toEqual({ ok: false, error: "DepositReceipt: wrong discriminator" });
    const bad = bytes.slice();
    bad[120] = 3;
    expect(decodeDepositReceipt(bad)).toEqual({ ok: false, error: "DepositReceipt: unknown status 3" });
  });
});

describe("SPL token account", () => {
  it("is the 165-byte SPL layout: mint, owner, amount, no delegate, initialized, not native, no close authority", () => {
    const bytes = encodeTokenAccount({ mint: fill(0x01), owner: fill(0x02), amount: 42n });
    expect(bytes.length).toBe(TOKEN_ACCOUNT_SIZE);
    expect(hex(bytes)).toBe(
      "01".repeat(32) + "02".repeat(32) + "2a00000000000000" + "00".repeat(36) + "01" + "00".repeat(12) + "00".repeat(8) + "00".repeat(36),
    );
    expect(decodeTokenAccount(bytes)).toEqual({ ok: true, value: { mint: fill(0x01), owner: fill(0x02), amount: 42n } });
  });

  it("decode refuses a wrong size and an uninitialized account, and reads a frozen one", () => {
    const bytes = encodeTokenAccount({ mint: fill(0x01), owner: fill(0x02), amount: 42n });
    expect(decodeTokenAccount(bytes.subarray(0, 82))).toEqual({ ok: false, error: "TokenAccount: expected 165 bytes, got 82" });
    const uninit = bytes.slice();
    uninit[108] = 0;
    expect(decodeTokenAccount(uninit)).toEqual({ ok: false, error: "TokenAccount: not initialized" });
    const frozen = bytes.slice();
    frozen[108] = 2;
    expect(decodeTokenAccount(frozen)).toMatchObject({ ok: true, value: { amount: 42n } });
  });
});
