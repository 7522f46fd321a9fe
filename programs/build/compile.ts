// clang for SBPF: compile C files with the fixed flags of sbpf.ts, and find the compiler.

import { execFileSync, spawnSync } from "node:child_process";
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

/** Compile one C file to a BPF object; throws with clang's messages on failure. */
export function compileC(clang: string, source: string, output: string, includeDirs: string[]): void {
  const args = [...CLANG_FLAGS, ...includeDirs.flatMap((d) => ["-I", d]), source, "-o", output];
  const r = spawnSync(clang, args, { encoding: "utf8" });
  if (r.status !== 0) {
    throw new Error(`clang failed on ${source}:\n${r.stderr || r.stdout}`);
  }
}

/** `clang --version` first line, for build reports. */
export function clangVersion(clang: string): string {
  return execFileSync(clang, ["--version"], { encoding: "utf8" }).split("\n")[0] ?? "";
}
