import { describe, expect, it } from "vitest";
import { adminFaultRequest, adminFeeRequest, oneFaultSwitch } from "./admin";
import { decodeBody } from "./request-fields";

const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const problem = (r: ReturnType<typeof decodeBody>) => (r.ok ? null : { error: r.error.error, message: r.error.message });

describe("POST /admin/fees body", () => {
  const fee = (body: unknown) => decodeBody(adminFeeRequest, body);

  it("names the first wrong field in the route's words: body, network, mint, bps, floor", () => {
    expect(problem(fee([]))).toEqual({ error: "InvalidRequest", message: "body must be { network, mint?, bps, floor } or { network, mint?, reset: true }" });
    expect(problem(fee({ network: "x", mint: "bad" }))).toEqual({ error: "InvalidNetwork", message: "network must be mainnet or devnet" });
    expect(problem(fee({ network: "mainnet", mint: "bad" }))).toEqual({
      error: "InvalidMint",
      message: "mint must be a base58 public key, or null for the default",
    });
    expect(problem(fee({ network: "mainnet" }))).toEqual({ error: "InvalidRequest", message: "bps: an integer from 0 to 10000" });
    expect(problem(fee({ network: "mainnet", bps: 10_001 }))).toEqual({ error: "InvalidRequest", message: "bps: an integer from 0 to 10000" });
    expect(problem(fee({ network: "mainnet", bps: 5, floor: -1 }))).toEqual({ error: "InvalidRequest", message: "floor: must not be negative" });
  });

  it("reads bps and floor only without reset: true, and a floor left out or null as 0", () => {
    expect(fee({ network: "mainnet", mint: null, reset: true, bps: "ignored" })).toEqual({
      ok: true,
      value: { network: "mainnet", mint: null, reset: true, bps: null, floor: null },
    });
    const set = fee({ network: "devnet", mint: USDC, reset: "yes", bps: 30, floor: null });
    expect(set.ok && { reset: set.value.reset, mint: set.value.mint?.text, bps: set.value.bps, floor: set.value.floor }).toEqual({
      reset: false,
      mint: USDC,
      bps: 30,
      floor: 0n,
    });
    const text = fee({ network: "devnet", bps: 0, floor: "1000" });
    expect(text.ok && text.value.floor).toBe(1000n);
  });
});

describe("POST /admin/sandbox/faults body", () => {
  const fault = (body: unknown) => decodeBody(adminFaultRequest, body, { feePayerLamports: oneFaultSwitch });

  it("asks for one switch, then checks each switch sent", () => {
    expect(problem(fault({ network: "mainnet" }))).toEqual({
      error: "InvalidRequest",
      message: "send chainDown (true or false) or feePayerLamports (a decimal string, or null)",
    });
    expect(problem(fault({ network: "nope" }))).toEqual({ error: "InvalidNetwork", message: "network must be mainnet or devnet" });
    expect(problem(fault({ network: "mainnet", chainDown: "yes" }))).toEqual({ error: "InvalidRequest", message: "chainDown must be true or false" });
    expect(problem(fault({ network: "mainnet", feePayerLamports: 5 }))).toEqual({
      error: "InvalidRequest",
      message: "feePayerLamports must be a decimal string of lamports, or null to end the drill",
    });
  });

  it("tells a fee-payer balance left out from one set to null (the drill ended)", () => {
    expect(fault({ network: "mainnet", chainDown: true })).toEqual({ ok: true, value: { network: "mainnet", chainDown: true, feePayerLamports: undefined } });
    expect(fault({ network: "mainnet", feePayerLamports: null })).toEqual({ ok: true, value: { network: "mainnet", chainDown: null, feePayerLamports: null } });
    expect(fault({ network: "devnet", feePayerLamports: "42" })).toEqual({ ok: true, value: { network: "devnet", chainDown: null, feePayerLamports: "42" } });
  });
});
