import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * A function a reader cannot hold in view is where steps hide: past 120 lines it is split
 * into named steps. Declarative tables are object literals, not functions, so they are not
 * counted; the unrolled Poseidon is C and not read here.
 */

const ROOT = join(import.meta.dirname, "..", "..");
const MAX_LINES = 120;
const PRODUCTION = /^(?:src-[\w-]+|scripts|tools|programs|bench)\/.*\.(?:ts|tsx|mts)$/;
const NOT_PRODUCTION = /\.test\.tsx?$|\.d\.ts$|(?:^|\/)test-support\.ts$/;

function productionFiles(): string[] {
  return execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: ROOT, encoding: "utf8" })
    .split("\0")
    .filter((f) => PRODUCTION.test(f) && !NOT_PRODUCTION.test(f));
}

function nameOf(node: ts.Node): string {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name) return node.name.getText();
  if (ts.isConstructorDeclaration(node)) return "constructor";
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))) return parent.name.getText();
  return "(anonymous)";
}

function longFunctions(): string[] {
  const found: string[] = [];
  for (const file of productionFiles()) {
    let text: string;
    try {
      text = readFileSync(join(ROOT, file), "utf8");
    } catch {
      continue; // deleted in the working tree, not yet committed
    }
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && "body" in node && node.body) {
        const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        if (last - first + 1 > MAX_LINES) found.push(`${file}:${first + 1} ${nameOf(node)} is ${last - first + 1} lines`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

describe("production functions", () => {
  it(`no function in production code is longer than ${MAX_LINES} lines`, () => {
    expect(longFunctions()).toEqual([]);
  });
});
