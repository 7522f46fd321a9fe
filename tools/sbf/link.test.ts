// The linker and the C SDK against the real runtime: C test programs (tools/sbf/test-programs)
// compiled with clang, linked by tools/sbf, executed in LiteSVM.

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Keypair, PublicKey, SystemProgram, TransactionInstruction } from "@solana/web3.js";
import { buildProgram, findClang, INSTALL_HINT } from "./compile.js";
import { link, LinkError } from "./link.js";
import { CLANG_FLAGS } from "./sbpf.js";
import { Svm } from "../../tests/support/svm.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const TP = "tools/sbf/test-programs";
const clang = findClang();
if (!clang) console.warn(`SKIPPED tools/sbf/link.test.ts: clang not found (${INSTALL_HINT})`);

const POSEIDON_1_2 = "115cc0f5e7d690413df64c6b9662e9cf2a3617f2743245519e19607a4417189a";
/** 2 * (1, 2) on BN254 G1, big-endian x || y. */
const G1_DOUBLE = "030644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd3" + "15ed738c0e0a7c92e7845f96b2ae9c0a68a6a449e3538fc7ff3ebf7a5a18a2c4";

let objDir = "";
function build(sources: string[], includeDirs: string[] = []): Uint8Array {
  return buildProgram(clang!, {
    cwd: ROOT,
    sources: sources.map((s) => `${TP}/${s}`),
    includeDirs: ["programs/include", ...includeDirs.map((d) => `${TP}/${d}`)],
    objDir,
  });
}
const buildBasic = () => build(["basic/main.c", "basic/util.c"], ["basic"]);

function linkError(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof LinkError) return e.message;
    throw e;
  }
  throw new Error("expected a LinkError");
}

/** murmur3-32 with seed 0: the hash the loader writes into a syscall's call immediate. */
function murmur3(bytes: Uint8Array): number {
  let h = 0;
  const c1 = 0xcc9e2d51,
    c2 = 0x1b873593;
  const n = bytes.length & ~3;
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < n; i += 4) {
    let k = dv.getUint32(i, true);
    k = Math.imul(k, c1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, c2);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  let k = 0;
  const rest = bytes.length & 3;
  if (rest === 3) k ^= bytes[n + 2]! << 16;
  if (rest >= 2) k ^= bytes[n + 1]! << 8;
  if (rest >= 1) {
    k ^= bytes[n]!;
    k = Math.imul(k, c1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, c2);
    h ^= k;
  }
  h ^= bytes.length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Sections of a linked .so by name (offset, size), read from its section headers. */
function outputSections(so: Uint8Array): Map<string, { offset: number; size: number }> {
  const v = new DataView(so.buffer, so.byteOffset, so.byteLength);
  const shoff = Number(v.getBigUint64(40, true));
  const shnum = v.getUint16(60, true);
  const shstr = Number(v.getBigUint64(shoff + v.getUint16(62, true) * 64 + 24, true));
  const out = new Map<string, { offset: number; size: number }>();
  for (let i = 1; i < shnum; i++) {
    const at = shoff + i * 64;
    let end = shstr + v.getUint32(at, true);
    const start = end;
    while (so[end] !== 0) end++;
    out.set(new TextDecoder().decode(so.subarray(start, end)), { offset: Number(v.getBigUint64(at + 24, true)), size: Number(v.getBigUint64(at + 32, true)) });
  }
  return out;
}

describe.skipIf(!clang)("SBF linker: C test programs run in LiteSVM", () => {
  let so: Uint8Array;
  let svm: Svm;
  let programId: PublicKey;
  let payer: Keypair;
  const ix = (data: number[] | Uint8Array, keys: TransactionInstruction["keys"] = []) =>
    new TransactionInstruction({ programId, keys, data: Buffer.from(data) });

  beforeAll(() => {
    objDir = mkdtempSync(path.join(tmpdir(), "sbf-test-"));
    so = buildBasic();
    svm = new Svm();
    programId = svm.addProgram(so);
    payer = svm.fundedKeypair();
  });
  afterAll(() => {
    if (objDir) rmSync(objDir, { recursive: true, force: true });
  });

  it("writes an SBPF v0 shared object: ET_DYN, EM_BPF, e_flags 0, entry in .text, vaddr = offset", () => {
    const v = new DataView(so.buffer, so.byteOffset, so.byteLength);
    expect(v.getUint16(16, true)).toBe(3);
    expect(v.getUint16(18, true)).toBe(247);
    expect(v.getUint32(48, true)).toBe(0);
    const s = outputSections(so);
    const text = s.get(".text")!;
    const entry = Number(v.getBigUint64(24, true));
    expect(entry).toBeGreaterThanOrEqual(text.offset);
    expect(entry).toBeLessThan(text.offset + text.size);
    expect([...s.keys()]).toEqual([".text", ".rodata", ".dynamic", ".dynsym", ".dynstr", ".rel.dyn", ".shstrtab"]);
    const dynstr = s.get(".dynstr")!;
    const names = new TextDecoder()
      .decode(so.subarray(dynstr.offset, dynstr.offset + dynstr.size))
      .split("\0")
      .filter(Boolean);
    expect(names).toEqual([...names].sort());
    expect(names).toContain("sol_memcpy_"); // util.c's memcpy call, mapped onto the syscall
    expect(names).not.toContain("memcpy");
    expect(names).toContain("sol_invoke_signed_c");
  });

  it("logs strings from .rodata (and a .rodata table of pointers) and makes local and cross-object calls", () => {
    const r = svm.send([ix([0, 2])], [payer]);
    expect(r.error).toBeUndefined();
    // triple_plus(2, 7) = 13; util_mix(13, 1) = 13 * 5 + 1 = 66
    expect(r.programLogs).toEqual(["hello from .rodata", "two", "util.c says hi", "0xd, 0x42, 0x0, 0x2, 0x0"]);
    expect(r.computeUnits).toBeGreaterThan(0);
  });

  it("calls syscalls by name: memcpy, log_data, log_pubkey, clock, compute-unit log, stack height", () => {
    const r = svm.send([ix([7])], [payer]);
    expect(r.error).toBeUndefined();
    expect(r.logs).toContain("Program data: YWJj Bw4=");
    expect(r.programLogs).toContain(programId.toBase58());
    expect(r.logs.some((l) => /^Program consumption: \d+ units remaining$/.test(l))).toBe(true);
    const slot = svm.raw.getClock().slot;
    expect(r.programLogs).toContain(`0x${slot.toString(16)}, 0x7, 0xe, 0xf9, 0x1`);
  });

  it("sol_poseidon of [1, 2] (BN254 x5, big-endian) matches circomlib", () => {
    const r = svm.send([ix([1])], [payer]);
    expect(r.error).toBeUndefined();
    expect(Buffer.from(r.returnData).toString("hex")).toBe(POSEIDON_1_2);
  });

  it("sol_alt_bn128_group_op ADD doubles the G1 generator; sol_get_rent_sysvar reads Rent", () => {
    const r = svm.send([ix([8])], [payer]);
    expect(r.error).toBeUndefined();
    expect(Buffer.from(r.returnData).toString("hex")).toBe(G1_DOUBLE);
    const rent = svm.raw.getRent();
    expect(r.programLogs[0]).toBe(`0x${rent.lamportsPerByteYear.toString(16)}, 0x${rent.burnPercent.toString(16)}, 0x0, 0x0, 0x8`);
  });

  it("creates a PDA with sol_invoke_signed (System CreateAccount signed by seeds)", () => {
    const [vault] = PublicKey.findProgramAddressSync([Buffer.from("vault"), payer.publicKey.toBuffer()], programId);
    const space = 48n;
    const lamports = svm.rentExempt(Number(space));
    const data = Buffer.alloc(17);
    data[0] = 2;
    data.writeBigUInt64LE(lamports, 1);
    data.writeBigUInt64LE(space, 9);
    const r = svm.send(
      [
        ix(data, [
          { pubkey: payer.publicKey, isSigner: true, isWritable: true },
          { pubkey: vault, isSigner: false, isWritable: true },
          { pubkey: SystemProgram.programId, isSigner: false, isWritable: false },
        ]),
      ],
      [payer],
    );
    expect(r.error).toBeUndefined();
    expect(r.programLogs).toContain("vault created");
    const acct = svm.getAccount(vault)!;
    expect(acct.owner.equals(programId)).toBe(true);
    expect(acct.lamports).toBe(lamports);
    expect(acct.data.length).toBe(Number(space));
  });

  it("sol_deserialize handles a duplicated account", () => {
    const other = Keypair.generate().publicKey;
    svm.setAccount(other, { lamports: 12_345n, data: new Uint8Array(10), owner: SystemProgram.programId });
    const keys = [
      { pubkey: payer.publicKey, isSigner: true, isWritable: true },
      { pubkey: payer.publicKey, isSigner: true, isWritable: true },
      { pubkey: other, isSigner: false, isWritable: false },
    ];
    const r = svm.send([ix([3, ...other.toBytes()], keys)], [payer]);
    expect(r.error).toBeUndefined();
    // ka_num, the payer's lamports (fee already charged), other's lamports and data_len
    expect(r.programLogs[0]).toBe(`0x3, 0x${svm.balance(payer.publicKey).toString(16)}, 0x3039, 0xa, 0x3`);
  });

  it("sol_heap_alloc hands out 8-aligned blocks from the 32 KiB heap and NULL when it is exhausted", () => {
    const r = svm.send([ix([4])], [payer]);
    expect(r.error).toBeUndefined();
    expect(r.programLogs[0]).toBe("0x300000008, 0x300002718, 0x300004e28, 0x300007538, 0x4");
  });

  it("ERROR_CUSTOM(n) surfaces as { Custom: n }; builtin codes by name", () => {
    const custom = (n: number) => {
      const d = Buffer.alloc(5);
      d[0] = 5;
      d.writeUInt32LE(n, 1);
      return svm.send([ix(d)], [payer]);
    };
    const r = custom(42);
    expect(r.ok).toBe(false);
    expect(r.custom).toBe(42);
    expect(r.err).toEqual({ InstructionError: [0, { Custom: 42 }] });
    expect(r.error).toBe("InstructionError(0, Custom(42))");
    expect(custom(0).err).toEqual({ InstructionError: [0, { Custom: 0 }] });
    expect(custom(0xffffffff).custom).toBe(0xffffffff);
    const builtin = svm.send([ix([6])], [payer]);
    expect(builtin.err).toEqual({ InstructionError: [0, "InvalidArgument"] });
    expect(builtin.custom).toBeUndefined();
  });

  it("simulate runs without committing", () => {
    const before = svm.balance(payer.publicKey);
    const r = svm.simulate([ix([0])], [payer]);
    expect(r.ok).toBe(true);
    expect(r.programLogs[0]).toBe("hello from .rodata");
    expect(svm.balance(payer.publicKey)).toBe(before);
  });

  it("refuses writable globals (.data, .bss) naming the symbol, and unknown externals", () => {
    const data = linkError(() => build(["refused/data-global.c"]));
    expect(data).toMatch(/writable section \.data.*counter/);
    expect(data).toMatch(/const/);
    expect(linkError(() => build(["refused/bss-global.c"]))).toMatch(/writable section \.bss.*scratch/);
    expect(linkError(() => build(["refused/unknown-call.c"]))).toMatch(/undefined symbol not_defined_anywhere/);
  });

  it("refuses 32-bit add/mul (SBPF v0 sign-extends them) when alu32 code slips in", () => {
    const out = path.join(objDir, "alu32.o");
    const args = [...CLANG_FLAGS, "-Xclang", "-target-feature", "-Xclang", "+alu32", "-I", "programs/include", `${TP}/refused/alu32.c`, "-o", out];
    const r = spawnSync(clang!, args, { cwd: ROOT, encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    expect(linkError(() => link([{ name: "alu32.o", bytes: readFileSync(out) }]))).toMatch(/(mul32|add32).*entrypoint/);
  });

  it("is deterministic: two builds give identical bytes", () => {
    const again = buildBasic();
    expect(Buffer.compare(Buffer.from(again), Buffer.from(so))).toBe(0);
  });

  it("a pre-hashed syscall immediate (murmur3 in imm, no dynamic relocation) is refused by the loader", () => {
    const patched = Uint8Array.from(so);
    const v = new DataView(patched.buffer);
    const s = outputSections(patched);
    const rel = s.get(".rel.dyn")!,
      dynsym = s.get(".dynsym")!,
      dynstr = s.get(".dynstr")!,
      dynamic = s.get(".dynamic")!;
    for (let at = rel.offset; at < rel.offset + rel.size; at += 16) {
      const site = Number(v.getBigUint64(at, true));
      const sym = Number(v.getBigUint64(at + 8, true) >> 32n);
      let end = dynstr.offset + v.getUint32(dynsym.offset + sym * 24, true);
      const start = end;
      while (patched[end] !== 0) end++;
      v.setUint32(site + 4, murmur3(patched.subarray(start, end)), true);
    }
    v.setBigUint64(dynamic.offset, 0n, true); // DT_NULL first: no dynamic relocations at all
    // SBPF v0 reads any `call imm` with imm != -1 as a relative call before it looks at relocations.
    expect(() => new Svm().addProgram(patched)).toThrow(/Relative jump out of bounds/);
    // The same bytes with the dynamic relocations kept and imm = -1 load and run.
    expect(new Svm().addProgram(so)).toBeInstanceOf(PublicKey);
  });
});
