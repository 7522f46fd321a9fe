import { describe, expect, it } from "vitest";
import { parseSwapWithdrawalRequest, parseU64, parseWithdrawalRequest } from "./request";

const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const SOL = "So11111111111111111111111111111111111111112";
const RECIPIENT = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin";
const body = (extra: Record<string, unknown> = {}) => ({
  nullifierHash: new Array(32).fill(1),
  proof: new Array(256).fill(0),
  root: new Array(32).fill(2),
  recipient: RECIPIENT,
  depth: 32,
  depositSize: 1_000_000,
  mint: USDC,
  network: "devnet",
  changeCommitment: new Array(32).fill(3),
  ...extra,
});
const swapBody = (extra: Record<string, unknown> = {}) => {
  const { mint: _mint, ...rest } = body();
  return { ...rest, input_mint: USDC, output_mint: SOL, minOut: "12345", ...extra };
};
const problem = (r: { ok: boolean; error?: { field: string } }) => (r.ok ? null : r.error!.field);

describe("parseU64: amounts as JSON numbers or decimal strings", () => {
  it("takes safe integers and decimal strings up to 2^64 - 1", () => {
    expect(parseU64(0, false)).toEqual({ ok: true, value: 0n });
    expect(parseU64("18446744073709551615", true)).toEqual({ ok: true, value: (1n << 64n) - 1n });
  });
  it("refuses what is not an exact u64", () => {
    for (const v of [-1, 1.5, 2 ** 53, "18446744073709551616", "-1", "01", "1e3", " 1", "", null, true, [1], {}]) expect(parseU64(v, false).ok).toBe(false);
    expect(parseU64(0, true).ok).toBe(false);
    expect(parseU64("0", true).ok).toBe(false);
  });
});

describe("the withdrawal request's protocol v2 fields", () => {
  it("leaves fee and relayer to the relay when absent", () => {
    const r = parseWithdrawalRequest(body());
    expect(r.ok && [r.value.fee, r.value.relayer]).toEqual([null, null]);
  });
  it("reads fee as a number or a decimal string, and relayer as a public key", () => {
    const r = parseWithdrawalRequest(body({ fee: "2500", relayer: SOL }));
    expect(r.ok && [r.value.fee, r.value.relayer]).toEqual([2500n, SOL]);
    const n = parseWithdrawalRequest(body({ fee: 2500 }));
    expect(n.ok && n.value.fee).toBe(2500n);
  });
  it("names fee when it is above depositSize, negative or malformed", () => {
    for (const fee of [1_000_001, -1, "1.5", 1.5, "abc", null]) expect(problem(parseWithdrawalRequest(body({ fee })))).toBe("fee");
    expect(parseWithdrawalRequest(body({ fee: 1_000_000 })).ok).toBe(true);
  });
  it("names relayer when it is not a base58 public key", () => {
    for (const relayer of ["not-base58-0OIl", 42, "", "1".repeat(60)]) expect(problem(parseWithdrawalRequest(body({ relayer })))).toBe("relayer");
  });
});

describe("the swap request requires minOut", () => {
  it("reads minOut as the least the recipient must receive", () => {
    const r = parseSwapWithdrawalRequest(swapBody({ minOut: 777 }));
    expect(r.ok && r.value.minOut).toBe(777n);
  });
  it("names minOut when it is missing, zero, negative or malformed", () => {
    const { minOut: _m, ...missing } = swapBody();
    expect(problem(parseSwapWithdrawalRequest(missing))).toBe("minOut");
    for (const minOut of [0, "0", -5, "-5", "1.0", 1.5, null, "18446744073709551616"])
      expect(problem(parseSwapWithdrawalRequest(swapBody({ minOut })))).toBe("minOut");
  });
});

describe("protocol v3: the change commitment", () => {
  const modulus = BigInt("21888242871839275222246405745257275088548364400416034343698204186575808495617");
  const bytesOf = (x: bigint) => Array.from({ length: 32 }, (_, i) => Number((x >> BigInt(8 * (31 - i))) & 0xffn));

  it("reads it as 32 big-endian bytes, in both requests", () => {
    const r = parseWithdrawalRequest(body({ changeCommitment: bytesOf(modulus - 1n) }));
    expect(r.ok && Array.from(r.value.changeCommitment)).toEqual(bytesOf(modulus - 1n));
    const s = parseSwapWithdrawalRequest(swapBody());
    expect(s.ok && Array.from(s.value.changeCommitment)).toEqual(new Array(32).fill(3));
  });

  it("names changeCommitment when it is missing, zero, not 32 bytes, not below the modulus or not bytes", () => {
    const { changeCommitment: _c, ...missing } = body();
    expect(problem(parseWithdrawalRequest(missing))).toBe("changeCommitment");
    const { changeCommitment: _s, ...swapMissing } = swapBody();
    expect(problem(parseSwapWithdrawalRequest(swapMissing))).toBe("changeCommitment");
    for (const changeCommitment of [
      new Array(32).fill(0),
      new Array(31).fill(1),
      new Array(33).fill(1),
      bytesOf(modulus),
      new Array(32).fill(255),
      new Array(32).fill("1"),
      [...new Array(31).fill(1), 256],
      "0x01",
      42,
      null,
      {},
    ]) {
      expect(problem(parseWithdrawalRequest(body({ changeCommitment })))).toBe("changeCommitment");
      expect(problem(parseSwapWithdrawalRequest(swapBody({ changeCommitment })))).toBe("changeCommitment");
    }
  });

  it("still names depositSize when it is zero: the part withdrawn is at least one base unit", () => {
    for (const depositSize of [0, "0", -1, 1.5, 2 ** 60, "18446744073709551616", "1e6", null, undefined]) {
      expect(problem(parseWithdrawalRequest(body({ depositSize }))), String(depositSize)).toBe("depositSize");
    }
  });

  it("takes depositSize up to 2^64 - 1: a safe JSON number, or decimal text above that", () => {
    const r = parseWithdrawalRequest(body({ depositSize: "18446744073709551615", fee: "18446744073709551615" }));
    expect(r.ok && [r.value.depositSize, r.value.fee]).toEqual([(1n << 64n) - 1n, (1n << 64n) - 1n]);
    const n = parseWithdrawalRequest(body({ depositSize: 1 }));
    expect(n.ok && n.value.depositSize).toBe(1n);
  });
});
