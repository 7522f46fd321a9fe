import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * Comments and docs send readers to files by path; a moved file leaves them pointing
 * nowhere, and no compiler notices. This test resolves every repository path cited in a
 * comment (TypeScript, JavaScript, C) or anywhere in a Markdown file.
 */

const ROOT = join(import.meta.dirname, "..", "..");
const TOP = [
  "src-server",
  "src-shared",
  "src-client",
  "src-main",
  "src-preload",
  "src-renderer",
  "src-localnet",
  "programs",
  "scripts",
  "tools",
  "bench",
  "tests",
  "e2e",
  "docs",
  "resources",
  "circuits",
];
const CITED = new RegExp(`(?<![\\w./-])((?:${TOP.join("|")})/[\\w./-]*\\w)`, "g");
const CODE = /\.(?:ts|tsx|mts|js|mjs|cjs|c|h)$/;

function trackedFiles(): string[] {
  return execFileSync("git", ["ls-files", "-z"], { cwd: ROOT, encoding: "utf8" })
    .split("\0")
    .filter((f) => f && (CODE.test(f) || f.endsWith(".md")) && existsSync(join(ROOT, f)));
}

/** Comment text of a source file: string literals (test fixtures, generated names) are not citations. */
function commentsOf(text: string): { text: string; offset: number }[] {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.JSX, text);
  const out: { text: string; offset: number }[] = [];
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (kind === ts.SyntaxKind.SingleLineCommentTrivia || kind === ts.SyntaxKind.MultiLineCommentTrivia) {
      out.push({ text: scanner.getTokenText(), offset: scanner.getTokenStart() });
    }
  }
  return out;
}

/** A module path may be cited without its extension, or by its compiled `.js` name. */
function resolves(path: string, from: string): boolean {
  const bases = [join(ROOT, path), join(ROOT, dirname(from), path)];
  return bases.some((b) => [b, `${b}.ts`, `${b}.tsx`, b.replace(/\.js$/, ".ts"), join(b, "index.ts")].some((p) => existsSync(p)));
}

function missingCitations(): string[] {
  const missing: string[] = [];
  for (const file of trackedFiles()) {
    const text = readFileSync(join(ROOT, file), "utf8");
    const parts = file.endsWith(".md") ? [{ text, offset: 0 }] : commentsOf(text);
    for (const part of parts) {
      for (const m of part.text.matchAll(CITED)) {
        const path = m[1]!;
        if (resolves(path, file)) continue;
        const line = text.slice(0, part.offset + m.index).split("\n").length;
        missing.push(`${file}:${line} cites ${path}`);
      }
    }
  }
  return missing;
}

describe("repository paths cited in comments and docs", () => {
  it("every cited path names a file or folder that exists", () => {
    expect(missingCitations()).toEqual([]);
  });
});
