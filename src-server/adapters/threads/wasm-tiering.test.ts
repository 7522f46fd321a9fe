import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PREBUILT_WASM } from "../poseidon-fast/fast-hasher";
import { compileWithTieringBudget, instantiateWasm, processTieringBudget, TIERING_BUDGET_FOR_LONG_RUNS, V8_DEFAULT_TIERING_BUDGET } from "./wasm-tiering";

describe("wasm tier-up budgets", () => {
  it("knows this Node's default budget, which it puts back after each compile", () => {
    const options = execFileSync(process.execPath, ["--v8-options"], { encoding: "utf8" });
    expect(/default: --wasm-tiering-budget=(\d+)/.exec(options)?.[1]).toBe(String(V8_DEFAULT_TIERING_BUDGET));
  });

  it("puts back an operator's budget from node's command line, in either form", () => {
    expect(processTieringBudget([])).toBe(V8_DEFAULT_TIERING_BUDGET);
    expect(processTieringBudget(["--wasm-tiering-budget=5000"])).toBe(5000);
    expect(processTieringBudget(["--wasm_tiering_budget", "7000", "--other"])).toBe(7000);
    expect(processTieringBudget(["--wasm-tiering-budget=x"])).toBe(V8_DEFAULT_TIERING_BUDGET);
  });

  it("compiles a module that instantiates and runs", () => {
    const module = compileWithTieringBudget(readFileSync(PREBUILT_WASM), TIERING_BUDGET_FOR_LONG_RUNS);
    const { exports } = instantiateWasm(module, {}) as { exports: { io_pairs(): number } };
    expect(exports.io_pairs()).toBeGreaterThan(0);
  });
});
