/**
 * Vitest's file order for a fresh clone (issue 29, target 6). With no results cache, vitest starts
 * the largest files first, and a five-line file that runs a shared suite (tests/http/relay.http.test.ts)
 * is among the last to start though it runs for half a minute: one worker then idles at the end of
 * the run while the other finishes it. Files start longest first by the durations a whole run
 * recorded (scripts/test-durations.json, `npm run test:timings -- --write-durations <file>`); files
 * it does not know follow in vitest's own order. Once vitest has its own cache (any run after the
 * first on a machine), its order is kept.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

function recorded(root: string): Record<string, number> {
  try {
    return (JSON.parse(readFileSync(path.join(root, "scripts", "test-durations.json"), "utf8")) as { files?: Record<string, number> }).files ?? {};
  } catch {
    return {};
  }
}

export class DurationSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    const root = this.ctx.config.root;
    const rel = (spec: TestSpecification): string => path.relative(root, spec.moduleId).split(path.sep).join("/");
    if (ordered.every((spec) => this.ctx.cache.getFileTestResults(`${spec.project.name}:${path.relative(root, spec.moduleId)}`))) return ordered;
    const ms = recorded(root);
    const rank = new Map(ordered.map((spec, i) => [spec, i]));
    return [...ordered].sort((a, b) => {
      const da = ms[rel(a)];
      const db = ms[rel(b)];
      if (da !== undefined && db !== undefined) return db - da;
      if (da !== undefined) return -1;
      if (db !== undefined) return 1;
      return rank.get(a)! - rank.get(b)!;
    });
  }
}
