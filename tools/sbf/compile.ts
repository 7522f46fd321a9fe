// clang for SBPF: compile C files with the fixed flags of sbpf.ts, and find the compiler.

import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { link } from "./link.js";
import { CLANG_FLAGS } from "./sbpf.js";

export const INSTALL_HINT = "apt-get install -y clang lld llvm";

/** The clang binary to use ($CLANG, else `clang`), or undefined when none runs. */
export function findClang(): string | undefined {
  const candidates = process.env.CLANG ? [process.env.CLANG] : ["clang", "clang-14"];
  for (const c of candidates) {
    const r = spawnSync(c, ["--version"], { encoding: "utf8" });
    if (r.status === 0) return c;
  }
  return undefined;
}

/** The clang binary, or an Error telling how to install it. */
export function requireClang(): string {
  const clang = findClang();
  if (!clang) throw new Error(`clang not found: the SBF programs are built with clang (${INSTALL_HINT})`);
  return clang;
}

/** `clang --version` first line, for build reports. */
export function clangVersion(clang: string): string {
  return execFileSync(clang, ["--version"], { encoding: "utf8" }).split("\n")[0] ?? "";
}

/**
 * Compile C sources (paths relative to `cwd`, so __FILE__ and the output do not depend on where
 * the repo lives) into objects under `objDir`, then link them into program bytes.
 */
export function buildProgram(clang: string, opts: { cwd: string; sources: string[]; includeDirs: string[]; objDir: string }): Uint8Array {
  const objects = opts.sources.map((src, i) => {
    const out = path.join(opts.objDir, `${i}-${path.basename(src, ".c")}.o`);
    const r = spawnSync(clang, [...CLANG_FLAGS, ...opts.includeDirs.flatMap((d) => ["-I", d]), src, "-o", out], { cwd: opts.cwd, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`clang failed on ${src}:\n${r.stderr || r.stdout}`);
    return { name: src, bytes: readFileSync(out) };
  });
  return link(objects);
}
