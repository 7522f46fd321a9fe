// npm run build:programs [-- --check] [-- <name>...]
//
// Builds every programs/<name>/ that has src/*.c into programs/<name>/<name>.so: each .c is
// compiled with the fixed flags of sbpf.ts and `-I programs/include -I programs/<name>/src`,
// then linked by our linker. Prints each program's size and sha256.
// --check rebuilds into a temporary directory and exits 1 naming every .so whose committed
// bytes differ from the source's (CI runs it).

import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildProgram, clangVersion, findClang, INSTALL_HINT } from "./compile.js";
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

/** Run the build (or --check) for the repo at `root`; returns the process exit code. */
export function runBuild(argv: string[], root: string = ROOT): number {
  const check = argv.includes("--check");
  const only = argv.filter((a) => !a.startsWith("--"));
  const clang = findClang();
  if (!clang) {
    console.error(`build:programs: clang not found. Install the toolchain: ${INSTALL_HINT}`);
    return 2;
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
