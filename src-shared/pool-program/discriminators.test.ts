import { ComputeBudgetProgram, PublicKey, SystemProgram } from "@solana/web3.js";
import { describe, expect, it } from "vitest";
import { toHex } from "../encoding/bytes";
import { ASSOCIATED_TOKEN_PROGRAM_ID, COMPUTE_BUDGET_PROGRAM_ID, DEFAULT_POOL_PROGRAM_ID, NATIVE_MINT, SYSTEM_PROGRAM_ID, TOKEN_PROGRAM_ID } from "./constants";
import { ACCOUNT_DISCRIMINATORS, EVENT_DISCRIMINATORS, INSTRUCTION_DISCRIMINATORS } from "./discriminators";

/** SHA-256 by the platform (WebCrypto: node:crypto under Node), independent of the hard-coded tables. */
const sha8 = async (s: string): Promise<number[]> => [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(s))).subarray(0, 8)];

describe("pool program discriminators", () => {
  it("every instruction discriminator is sha256('global:<snake_name>')[0..8]", async () => {
    for (const [name, d] of Object.entries(INSTRUCTION_DISCRIMINATORS)) expect([...d], name).toEqual(await sha8(`global:${name}`));
    expect(Object.keys(INSTRUCTION_DISCRIMINATORS)).toEqual([
      "initialize_pool",
      "deposit",
      "withdraw",
      "withdraw_swap",
      "assert_swap_out",
      "revert",
      "extend_pool",
    ]);
  });

  it("every account discriminator is sha256('account:<PascalName>')[0..8]", async () => {
    for (const [name, d] of Object.entries(ACCOUNT_DISCRIMINATORS)) expect([...d], name).toEqual(await sha8(`account:${name}`));
    expect(Object.keys(ACCOUNT_DISCRIMINATORS)).toEqual(["TreeAccount", "NullifierAccount", "DepositReceipt"]);
  });

  it("every event discriminator is sha256('event:<PascalName>')[0..8]", async () => {
    for (const [name, d] of Object.entries(EVENT_DISCRIMINATORS)) expect([...d], name).toEqual(await sha8(`event:${name}`));
    expect(Object.keys(EVENT_DISCRIMINATORS)).toEqual(["DepositEvent", "DepositFailedEvent", "WithdrawEvent", "RevertEvent"]);
  });

  it("no two discriminators collide", () => {
    const all = [...Object.values(INSTRUCTION_DISCRIMINATORS), ...Object.values(ACCOUNT_DISCRIMINATORS), ...Object.values(EVENT_DISCRIMINATORS)];
    expect(new Set(all.map((d) => toHex(d))).size).toBe(all.length);
  });
});

describe("program ids", () => {
  it("system and compute-budget ids are web3.js's", () => {
    expect(SYSTEM_PROGRAM_ID).toBe(SystemProgram.programId.toBase58());
    expect(COMPUTE_BUDGET_PROGRAM_ID).toBe(ComputeBudgetProgram.programId.toBase58());
  });

  it("every id is a valid 32-byte public key", () => {
    for (const id of [TOKEN_PROGRAM_ID, ASSOCIATED_TOKEN_PROGRAM_ID, SYSTEM_PROGRAM_ID, COMPUTE_BUDGET_PROGRAM_ID, NATIVE_MINT, DEFAULT_POOL_PROGRAM_ID]) {
      expect(new PublicKey(id).toBytes().length).toBe(32);
    }
  });
});
