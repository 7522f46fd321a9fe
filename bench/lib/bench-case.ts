import type { CaseResult } from "./metric";

/** What a case is run with: the quick (smoke) sizes or the full ones, and its progress log. */
export interface CaseOptions {
  quick: boolean;
  log: (msg: string) => void;
}

/** One benchmark case (bench/cases/*.ts); bench/cases/index.ts lists them in report order. */
export interface BenchCase {
  name: string;
  title: string;
  run(opts: CaseOptions): Promise<CaseResult>;
}
