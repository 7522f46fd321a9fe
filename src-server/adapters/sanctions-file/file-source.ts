import { readFile, stat } from "node:fs/promises";
import type { ListSource, SourceRead } from "./source";

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A list file, polled by stat: a change of mtime, size or inode (an editor's
 * rename-over) triggers a read. The read happens only once the file has held
 * still for `settleMs` and did not move while it was read, so a half-written
 * file is never loaded.
 */
export class FileListSource implements ListSource {
  readonly kind = "file" as const;
  private committed: string | null = null;

  constructor(
    readonly location: string,
    private readonly settleMs = 200,
  ) {}

  cached(): null {
    return null;
  }

  async read(): Promise<SourceRead> {
    const before = await this.stamp();
    if (typeof before !== "string") return before;
    if (before === this.committed) return { kind: "unchanged" };
    await sleep(this.settleMs);
    const settled = await this.stamp();
    if (settled !== before) return typeof settled === "string" ? { kind: "busy" } : settled;
    let bytes: Uint8Array;
    try {
      bytes = await readFile(this.location);
    } catch (e) {
      return { kind: "error", message: `cannot read ${this.location}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` };
    }
    if ((await this.stamp()) !== before) return { kind: "busy" };
    return { kind: "content", bytes, commit: () => (this.committed = before) };
  }

  private async stamp(): Promise<string | { kind: "error"; message: string }> {
    try {
      const s = await stat(this.location);
      if (!s.isFile()) return { kind: "error", message: `${this.location} is not a file` };
      return `${s.mtimeMs}:${s.size}:${s.ino}`;
    } catch (e) {
      return { kind: "error", message: `cannot read ${this.location}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` };
    }
  }
}
