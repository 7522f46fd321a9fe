// npm run build:programs on a scratch repo: builds programs/<name>/src/*.c into <name>.so, and
// --check exits 1 naming every .so whose bytes differ from the source's.

import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { programDirs, runBuild } from "./build.js";
import { findClang, INSTALL_HINT } from "./compile.js";
import { Svm, TOKEN_PROGRAM_ID } from "../../tests/support/svm.js";
import { Keypair, TransactionInstruction } from "@solana/web3.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const clang = findClang();
if (!clang) console.warn(`SKIPPED tools/sbf/build.test.ts: clang not found (${INSTALL_HINT})`);

function write(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

describe.skipIf(!clang)("build:programs", () => {
  let root = "";
  let logs: string[] = [];
  const quiet = () => {
    logs = [];
    vi.spyOn(console, "log").mockImplementation((...a: unknown[]) => void logs.push(a.join(" ")));
    vi.spyOn(console, "error").mockImplementation((...a: unknown[]) => void logs.push(a.join(" ")));
  };
  beforeAll(() => {
    root = mkdtempSync(path.join(tmpdir(), "sbf-build-test-"));
    mkdirSync(path.join(root, "programs/include"), { recursive: true });
    copyFileSync(path.join(ROOT, "programs/include/solana_sdk.h"), path.join(root, "programs/include/solana_sdk.h"));
    write(path.join(root, "programs/alpha/src/alpha.h"), "#include <solana_sdk.h>\nuint64_t twice(uint64_t x);\n");
    write(
      path.join(root, "programs/alpha/src/main.c"),
      '#include "alpha.h"\nuint64_t entrypoint(const uint8_t *in) { (void)in; sol_log("alpha"); return twice(0); }\n',
    );
    write(path.join(root, "programs/alpha/src/twice.c"), '#include "alpha.h"\nuint64_t twice(uint64_t x) { return x * 2; }\n');
    write(
      path.join(root, "programs/beta/src/beta.c"),
      "#include <solana_sdk.h>\nuint64_t entrypoint(const uint8_t *in) { (void)in; return ERROR_CUSTOM(7); }\n",
    );
    write(path.join(root, "programs/notes/README.md"), "no src here\n");
    write(path.join(root, "programs/headers-only/src/x.h"), "/* no .c */\n");
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });
  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("finds program directories with src/*.c only, sorted, sources sorted", () => {
    expect(programDirs(root)).toEqual([
      { name: "alpha", sources: ["programs/alpha/src/main.c", "programs/alpha/src/twice.c"] },
      { name: "beta", sources: ["programs/beta/src/beta.c"] },
    ]);
  });

  it("writes programs/<name>/<name>.so with size and sha256, and the program runs", () => {
    quiet();
    expect(runBuild([], root)).toBe(0);
    const alpha = readFileSync(path.join(root, "programs/alpha/alpha.so"));
    expect(existsSync(path.join(root, "programs/beta/beta.so"))).toBe(true);
    expect(logs.some((l) => l.startsWith(`programs/alpha/alpha.so: ${alpha.length} bytes sha256 `))).toBe(true);
    const svm = new Svm();
    const id = svm.addProgram(alpha);
    const r = svm.send([new TransactionInstruction({ programId: id, keys: [], data: Buffer.alloc(0) })], [svm.fundedKeypair()]);
    expect(r.programLogs).toEqual(["alpha"]);
    // beta has no .rodata and calls no syscall: no .rodata segment, no dynamic relocations.
    const beta = svm.addProgram(path.join(root, "programs/beta/beta.so"));
    const rb = svm.send([new TransactionInstruction({ programId: beta, keys: [], data: Buffer.alloc(0) })], [svm.fundedKeypair()]);
    expect(rb.err).toEqual({ InstructionError: [0, { Custom: 7 }] });
  });

  it("--check passes when the committed bytes are the source's, and names each .so that differs", () => {
    quiet();
    expect(runBuild(["--check"], root)).toBe(0);
    const so = path.join(root, "programs/beta/beta.so");
    const bytes = readFileSync(so);
    bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 1;
    writeFileSync(so, bytes);
    rmSync(path.join(root, "programs/alpha/alpha.so"));
    quiet();
    expect(runBuild(["--check"], root)).toBe(1);
    const last = logs[logs.length - 1]!;
    expect(last).toMatch(/differ for programs\/alpha\/alpha\.so, programs\/beta\/beta\.so/);
    expect(logs.some((l) => l.includes("programs/alpha/alpha.so") && l.includes("MISSING"))).toBe(true);
    expect(readFileSync(so)).toEqual(bytes); // --check writes nothing
    quiet();
    expect(runBuild(["beta"], root)).toBe(0);
    expect(runBuild(["--check", "beta"], root)).toBe(0);
  });

  it("fails naming the program when a build fails", () => {
    write(
      path.join(root, "programs/gamma/src/gamma.c"),
      "unsigned long long counter = 1;\nunsigned long long entrypoint(const unsigned char *in) { return counter + in[0]; }\n",
    );
    quiet();
    expect(runBuild(["gamma"], root)).toBe(1);
    expect(logs.join("\n")).toMatch(/programs\/gamma: .*writable section \.data \(counter\)/);
    rmSync(path.join(root, "programs/gamma"), { recursive: true });
  });

  it("says how to install clang when it is missing", () => {
    const saved = process.env.CLANG;
    process.env.CLANG = "/nonexistent/clang";
    try {
      quiet();
      expect(runBuild([], root)).toBe(2);
      expect(logs.join("\n")).toContain("apt-get install -y clang lld llvm");
    } finally {
      if (saved === undefined) delete process.env.CLANG;
      else process.env.CLANG = saved;
    }
  });
});

describe("tests/support/svm.ts", () => {
  it("creates a mint and funded token accounts that the real SPL Token program accepts", () => {
    const svm = new Svm();
    const owner = svm.fundedKeypair();
    const mintAuthority = Keypair.generate();
    const mint = svm.createMint(mintAuthority.publicKey, 6);
    const from = svm.createTokenAccount(mint, owner.publicKey, 1_000n);
    const to = svm.createTokenAccount(mint, Keypair.generate().publicKey);
    expect(svm.tokenBalance(from)).toBe(1_000n);
    const data = Buffer.alloc(9);
    data[0] = 3; // Transfer { amount }
    data.writeBigUInt64LE(250n, 1);
    const transfer = new TransactionInstruction({
      programId: TOKEN_PROGRAM_ID,
      keys: [
        { pubkey: from, isSigner: false, isWritable: true },
        { pubkey: to, isSigner: false, isWritable: true },
        { pubkey: owner.publicKey, isSigner: true, isWritable: false },
      ],
      data,
    });
    const r = svm.send([transfer], [owner]);
    expect(r.error).toBeUndefined();
    expect(svm.tokenBalance(from)).toBe(750n);
    expect(svm.tokenBalance(to)).toBe(250n);
    // MintTo by the mint authority: the mint's state (authority, supply) is real too.
    const mintTo = Buffer.alloc(9);
    mintTo[0] = 7;
    mintTo.writeBigUInt64LE(5n, 1);
    const r2 = svm.send(
      [
        new TransactionInstruction({
          programId: transfer.programId,
          keys: [
            { pubkey: mint, isSigner: false, isWritable: true },
            { pubkey: to, isSigner: false, isWritable: true },
            { pubkey: mintAuthority.publicKey, isSigner: true, isWritable: false },
          ],
          data: mintTo,
        }),
      ],
      [owner, mintAuthority],
    );
    expect(r2.error).toBeUndefined();
    expect(svm.tokenBalance(to)).toBe(255n);
    // Overdrawing fails with SPL Token's custom error 1 (InsufficientFunds).
    data.writeBigUInt64LE(10_000n, 1);
    const bad = svm.send([transfer], [owner]);
    expect(bad.ok).toBe(false);
    expect(bad.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(bad.custom).toBe(1);
  });
});
