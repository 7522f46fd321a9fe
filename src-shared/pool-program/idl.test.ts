import { describe, expect, it } from "vitest";
import idlJson from "../../docs/pool-program.idl.json";
import { TREE_ACCOUNT_OFFSETS } from "./accounts";
import { DEFAULT_POOL_PROGRAM_ID, DEPOSIT_RECEIPT_SIZE, NULLIFIER_ACCOUNT_SIZE, POOL_PROGRAM_NAME, TREE_ACCOUNT_SIZE } from "./constants";
import { ACCOUNT_DISCRIMINATORS, EVENT_DISCRIMINATORS, INSTRUCTION_DISCRIMINATORS } from "./discriminators";
import { POOL_ERROR_MESSAGES, POOL_ERRORS } from "./errors";
import { encodePoolEvent, EVENT_DATA_SIZES, type PoolEvent } from "./events";
import { encodePoolInstruction, INSTRUCTION_DATA_SIZES, POOL_INSTRUCTION_ACCOUNT_FLAGS, POOL_INSTRUCTION_ACCOUNTS, type PoolInstruction } from "./instructions";

type IdlType = string | { array: [IdlType, number] };
interface IdlField {
  name: string;
  type: IdlType;
}
interface Idl {
  version: string;
  name: string;
  instructions: { name: string; discriminator: number[]; accounts: { name: string; isMut: boolean; isSigner: boolean }[]; args: IdlField[] }[];
  accounts: { name: string; discriminator: number[]; size: number; type: { kind: "struct"; fields: IdlField[] } }[];
  events: { name: string; discriminator: number[]; fields: IdlField[] }[];
  errors: { code: number; name: string; msg: string }[];
  metadata: { address: string };
}

const idl = idlJson as unknown as Idl;

const PRIMITIVE_SIZES: Record<string, number> = { u8: 1, u32: 4, u64: 8, i64: 8, publicKey: 32 };
function sizeOf(t: IdlType): number {
  if (typeof t === "string") {
    const s = PRIMITIVE_SIZES[t];
    if (s === undefined) throw new Error(`unknown IDL type ${t}`);
    return s;
  }
  return sizeOf(t.array[0]) * t.array[1];
}

/** A generic Borsh encoder driven by the IDL, to compare with the hand-written codec. */
function encodeByIdl(discriminator: number[], fields: IdlField[], values: Record<string, unknown>): Uint8Array {
  const out = new Uint8Array(8 + fields.reduce((n, f) => n + sizeOf(f.type), 0));
  out.set(discriminator);
  const view = new DataView(out.buffer);
  let at = 8;
  for (const f of fields) {
    const v = values[f.name];
    if (f.type === "u8") view.setUint8(at, v as number);
    else if (f.type === "u32") view.setUint32(at, v as number, true);
    else if (f.type === "u64") view.setBigUint64(at, v as bigint, true);
    else if (f.type === "i64") view.setBigInt64(at, v as bigint, true);
    else out.set(v as Uint8Array, at);
    at += sizeOf(f.type);
  }
  return out;
}

/** Distinct sample bytes/ints for every field, by its IDL type. */
function sample(fields: IdlField[]): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  fields.forEach((f, i) => {
    if (f.type === "u8") values[f.name] = 1;
    else if (f.type === "u32") values[f.name] = 0x01020300 + i;
    else if (f.type === "u64" || f.type === "i64") values[f.name] = 0x0102030405060700n + BigInt(i);
    else values[f.name] = Uint8Array.from({ length: sizeOf(f.type) }, (_, j) => (i * 31 + j) & 0xff);
  });
  return values;
}

describe("docs/pool-program.idl.json agrees with src-shared/pool-program", () => {
  it("names the program and its default address", () => {
    expect(idl.name).toBe(POOL_PROGRAM_NAME);
    expect(idl.metadata.address).toBe(DEFAULT_POOL_PROGRAM_ID);
  });

  it("lists every instruction with the code's discriminator, accounts in order with their flags", () => {
    expect(idl.instructions.map((i) => i.name)).toEqual(Object.keys(INSTRUCTION_DISCRIMINATORS));
    for (const ix of idl.instructions) {
      const name = ix.name as keyof typeof INSTRUCTION_DISCRIMINATORS;
      expect(ix.discriminator, name).toEqual([...INSTRUCTION_DISCRIMINATORS[name]]);
      expect(
        ix.accounts.map((a) => a.name),
        name,
      ).toEqual([...POOL_INSTRUCTION_ACCOUNTS[name]]);
      const flags = POOL_INSTRUCTION_ACCOUNT_FLAGS[name] as Record<string, { isMut: boolean; isSigner: boolean }>;
      for (const a of ix.accounts) expect({ isMut: a.isMut, isSigner: a.isSigner }, `${name}.${a.name}`).toEqual(flags[a.name]);
    }
  });

  it("every instruction's args encode by the IDL exactly as encodePoolInstruction does", () => {
    for (const ix of idl.instructions) {
      const name = ix.name as keyof typeof INSTRUCTION_DATA_SIZES;
      const values = sample(ix.args);
      const expected = encodeByIdl(ix.discriminator, ix.args, values);
      expect(expected.length, name).toBe(INSTRUCTION_DATA_SIZES[name]);
      expect(encodePoolInstruction({ name, ...values } as PoolInstruction), name).toEqual(expected);
    }
  });

  it("lists every account with the code's discriminator, size and TreeAccount offsets", () => {
    expect(idl.accounts.map((a) => a.name)).toEqual(Object.keys(ACCOUNT_DISCRIMINATORS));
    const sizes: Record<string, number> = { TreeAccount: TREE_ACCOUNT_SIZE, NullifierAccount: NULLIFIER_ACCOUNT_SIZE, DepositReceipt: DEPOSIT_RECEIPT_SIZE };
    for (const a of idl.accounts) {
      expect(a.discriminator, a.name).toEqual([...ACCOUNT_DISCRIMINATORS[a.name as keyof typeof ACCOUNT_DISCRIMINATORS]]);
      expect(8 + a.type.fields.reduce((n, f) => n + sizeOf(f.type), 0), a.name).toBe(sizes[a.name]);
      expect(a.size, a.name).toBe(sizes[a.name]);
    }
    const tree = idl.accounts.find((a) => a.name === "TreeAccount")!;
    let at = 8;
    for (const f of tree.type.fields) {
      expect(at, f.name).toBe(TREE_ACCOUNT_OFFSETS[f.name as keyof typeof TREE_ACCOUNT_OFFSETS]);
      at += sizeOf(f.type);
    }
  });

  it("every event's fields encode by the IDL exactly as encodePoolEvent does", () => {
    expect(idl.events.map((e) => e.name)).toEqual(Object.keys(EVENT_DISCRIMINATORS));
    for (const e of idl.events) {
      const name = e.name as keyof typeof EVENT_DISCRIMINATORS;
      expect(e.discriminator, name).toEqual([...EVENT_DISCRIMINATORS[name]]);
      const values = sample(e.fields);
      const expected = encodeByIdl(e.discriminator, e.fields, values);
      expect(expected.length, name).toBe(EVENT_DATA_SIZES[name]);
      const event = { name, ...values, ...(name === "DepositFailedEvent" ? { reason: "zero" } : {}) } as PoolEvent;
      expect(encodePoolEvent(event), name).toEqual(expected);
    }
  });

  it("lists every error with the code's number and message", () => {
    expect(idl.errors).toEqual(Object.entries(POOL_ERRORS).map(([name, code]) => ({ code, name, msg: POOL_ERROR_MESSAGES[name as keyof typeof POOL_ERRORS] })));
  });
});
