// npm run build:programs [-- --check] [-- <name>...]
// npm run build:programs -- --vkey <verification_key.json> --out <file.so> [--check]
//
// Builds every programs/<name>/ that has src/*.c into programs/<name>/<name>.so: each .c is
// compiled with the fixed flags of sbpf.ts and `-I programs/include -I programs/<name>/src`,
// then linked by our linker. Prints each program's size and sha256.
// --check rebuilds into a temporary directory and exits 1 naming every .so whose committed
// bytes differ from the source's (CI runs it).
//
// --vkey builds the pool program for that verifying key (a ceremony's, docs/ceremony.md) into
// --out, and prints the key's fingerprint and the program's hash (programElfHash, what the relay
// compares with the deployed ProgramData). The committed programs/pool/pool.so and its
// src/verifying_key.h stay the development key's: the key's header is compiled in a scratch copy
// of the sources. With --check it writes nothing and exits 1 when --out's bytes are not the
// build's: how anyone reproduces a ceremony's pool.so from its vkey.

import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { SnarkjsVerificationKey } from "../../src-shared/zk/verification-key.js";
import { verifyingKeyFingerprint } from "../../src-shared/ceremony/fingerprint.js";
import { programElfHash } from "../../src-shared/ceremony/program-hash.js";
import { verifyingKeyBytes, verifyingKeyHeaderFor } from "../vkey/gen-verifying-key.js";
import { buildProgram, clangVersion, findClang, INSTALL_HINT, requireClang } from "./compile.js";
import { SBPF } from "./sbpf.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const PROGRAMS = "programs";

/** Program directories (relative to the repo root) that have src/*.c, sorted. */
export function programDirs(root: string = ROOT): { name: string; sources: string[] }[] {
  const base = path.join(root, PROGRAMS);
  return readdirSync(base)
    .filter((name) => statSync(path.join(base, name)).isDirectory() && existsSync(path.join(base, name, "src")))
    .sort()
    .map((name) => ({
      name,
      sources: readdirSync(path.join(base, name, "src"))
        .filter((f) => f.endsWith(".c"))
        .sort()
        .map((f) => path.posix.join(PROGRAMS, name, "src", f)),
    }))
    .filter((p) => p.sources.length > 0);
}

const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

/** A pool program built for a verifying key: its bytes, the key's fingerprint and the program's hash. */
export interface PoolBuild {
  so: Uint8Array;
  /** verifyingKeyFingerprint of the key (what the relay and the transcript name). */
  fingerprint: string;
  /** programElfHash of `so`: the deployed ProgramData must hash to this. */
  programElfHash: string;
  /** sha256 of the .so file as written. */
  sha256: string;
  /** sha256 of the key's bytes, as the generated header names it. */
  vkeySha256: string;
}

/**
 * Builds programs/pool for a verifying key (a file path, or a key object as snarkjs exports it)
 * and returns the program's bytes; what `--vkey` and a ceremony's finalize call. The sources and
 * headers are copied to a scratch root under the same relative paths, so the compiler sees the
 * same file names (__FILE__ reaches the binary through sol_panic) and the only difference from
 * the committed build is the generated verifying_key.h: the same key gives the same bytes, and the
 * development key gives exactly programs/pool/pool.so. Nothing in `root` is written.
 */
export function buildPoolForKey(opts: { vkey: { path: string } | SnarkjsVerificationKey; root?: string; clang?: string }): PoolBuild {
  const root = opts.root ?? ROOT;
  const clang = opts.clang ?? requireClang();
  const bytes = verifyingKeyBytes(opts.vkey);
  const fingerprint = verifyingKeyFingerprint(JSON.parse(new TextDecoder().decode(bytes)) as unknown);
  if (fingerprint === null) throw new Error("the verifying key lacks protocol, curve, nPublic or a point: not a snarkjs Groth16 key");
  const header = verifyingKeyHeaderFor(opts.vkey);
  const pool = programDirs(root).find((p) => p.name === "pool");
  if (!pool) throw new Error(`no programs/pool/src/*.c under ${root}`);
  const scratch = mkdtempSync(path.join(tmpdir(), "sbf-build-key-"));
  try {
    for (const dir of [path.posix.join(PROGRAMS, "include"), path.posix.join(PROGRAMS, "pool", "src")]) {
      mkdirSync(path.join(scratch, dir), { recursive: true });
      cpSync(path.join(root, dir), path.join(scratch, dir), { recursive: true });
    }
    writeFileSync(path.join(scratch, PROGRAMS, "pool", "src", "verifying_key.h"), header);
    const objDir = path.join(scratch, "obj");
    mkdirSync(objDir);
    const so = buildProgram(clang, {
      cwd: scratch,
      sources: pool.sources,
      includeDirs: [path.posix.join(PROGRAMS, "include"), path.posix.join(PROGRAMS, "pool", "src")],
      objDir,
    });
    return { so, fingerprint, programElfHash: programElfHash(so), sha256: sha256(so), vkeySha256: sha256(bytes) };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** `--vkey <file> --out <file> [--check]`: the pool program for that key; returns the exit code. */
function runKeyBuild(vkeyPath: string, out: string, check: boolean, clang: string, root: string): number {
  const resolvedOut = path.resolve(root, out);
  const committed = path.join(root, PROGRAMS, "pool", "pool.so");
  if (!check && resolvedOut === committed) {
    console.error(
      "build:programs: --out must not be programs/pool/pool.so: the committed build stays on the development key (npm run build:programs makes it)",
    );
    return 2;
  }
  let b: PoolBuild;
  try {
    b = buildPoolForKey({ vkey: { path: path.resolve(root, vkeyPath) }, root, clang });
  } catch (e) {
    console.error(`build:programs --vkey ${vkeyPath}: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
  console.log(`verifying key ${vkeyPath}: fingerprint ${b.fingerprint} (file sha256 ${b.vkeySha256})`);
  const line = `${out}: ${b.so.length} bytes sha256 ${b.sha256} programElfHash ${b.programElfHash}`;
  if (check) {
    const existing = existsSync(resolvedOut) ? readFileSync(resolvedOut) : undefined;
    const same = existing !== undefined && Buffer.compare(existing, Buffer.from(b.so)) === 0;
    console.log(`${line} ${same ? "matches" : existing ? `DIFFERS from ${out} (sha256 ${sha256(existing)})` : "MISSING"}`);
    if (!same) {
      console.error(`build:programs --check: ${out} is not the pool program built for ${vkeyPath}`);
      return 1;
    }
    return 0;
  }
  mkdirSync(path.dirname(resolvedOut), { recursive: true });
  writeFileSync(resolvedOut, b.so);
  console.log(line);
  return 0;
}

/** Run the build (or --check) for the repo at `root`; returns the process exit code. */
export function runBuild(argv: string[], root: string = ROOT): number {
  let parsed: { values: { check?: boolean; vkey?: string; out?: string }; positionals: string[] };
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { check: { type: "boolean" }, vkey: { type: "string" }, out: { type: "string" } },
    });
  } catch (e) {
    console.error(`build:programs: ${e instanceof Error ? e.message : String(e)}`);
    return 2;
  }
  const check = parsed.values.check === true;
  const only = parsed.positionals;
  const { vkey, out } = parsed.values;
  if ((vkey === undefined) !== (out === undefined)) {
    console.error("build:programs: --vkey and --out go together (--vkey <verification_key.json> --out <file.so>)");
    return 2;
  }
  if (vkey !== undefined && only.length > 0) {
    console.error(`build:programs: --vkey builds the pool program only; drop ${only.join(", ")}`);
    return 2;
  }
  const clang = findClang();
  if (!clang) {
    console.error(`build:programs: clang not found. Install the toolchain: ${INSTALL_HINT}`);
    return 2;
  }
  if (vkey !== undefined && out !== undefined) {
    console.log(`${clangVersion(clang)}; SBPF ${SBPF.version}; pool for a verifying key${check ? " (check)" : ""}`);
    return runKeyBuild(vkey, out, check, clang, root);
  }
  const programs = programDirs(root).filter((p) => only.length === 0 || only.includes(p.name));
  const unknown = only.filter((n) => !programs.some((p) => p.name === n));
  if (unknown.length > 0) {
    console.error(`build:programs: no programs/<name>/src/*.c for: ${unknown.join(", ")}`);
    return 2;
  }
  console.log(`${clangVersion(clang)}; SBPF ${SBPF.version}; ${programs.length} program(s)${check ? " (check)" : ""}`);
  const objDir = mkdtempSync(path.join(tmpdir(), "sbf-build-"));
  const differs: string[] = [];
  const failed: string[] = [];
  try {
    for (const p of programs) {
      let so: Uint8Array;
      try {
        so = buildProgram(clang, {
          cwd: root,
          sources: p.sources,
          includeDirs: [path.posix.join(PROGRAMS, "include"), path.posix.join(PROGRAMS, p.name, "src")],
          objDir,
        });
      } catch (e) {
        failed.push(p.name);
        console.error(`programs/${p.name}: ${e instanceof Error ? e.message : String(e)}`);
        continue;
      }
      const rel = path.posix.join(PROGRAMS, p.name, `${p.name}.so`);
      const file = path.join(root, rel);
      if (check) {
        const committed = existsSync(file) ? readFileSync(file) : undefined;
        const same = committed !== undefined && Buffer.compare(committed, Buffer.from(so)) === 0;
        if (!same) differs.push(rel);
        console.log(
          `${rel}: ${so.length} bytes sha256 ${sha256(so)} ${same ? "matches" : committed ? `DIFFERS from committed (sha256 ${sha256(committed)})` : "MISSING"}`,
        );
      } else {
        writeFileSync(file, so);
        console.log(`${rel}: ${so.length} bytes sha256 ${sha256(so)}`);
      }
    }
  } finally {
    rmSync(objDir, { recursive: true, force: true });
  }
  if (failed.length > 0) {
    console.error(`build:programs: failed to build ${failed.join(", ")}`);
    return 1;
  }
  if (differs.length > 0) {
    console.error(`build:programs --check: rebuilt bytes differ for ${differs.join(", ")}: run npm run build:programs and commit the .so`);
    return 1;
  }
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    process.exitCode = runBuild(process.argv.slice(2));
  } catch (e) {
    console.error(`build:programs: ${e instanceof Error ? e.message : String(e)}`);
    process.exitCode = 1;
  }
}
