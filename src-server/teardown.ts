/**
 * The composition root's one teardown stack: each resource registers its
 * closer the moment it exists, and a start that fails part-way and a normal
 * close unwind the same stack, last-opened first. A closer that throws does
 * not stop the ones below it; the first error is reported once all have run.
 */
export class TeardownStack {
  private readonly closers: { name: string; close: () => unknown }[] = [];
  private closing: Promise<void> | null = null;

  constructor(private readonly log: (line: string) => void = () => {}) {}

  /** Registers `close` to run at teardown, before everything registered earlier. */
  defer(name: string, close: () => unknown): void {
    if (this.closing) throw new Error(`teardown already started: cannot register ${name}`);
    this.closers.push({ name, close });
  }

  /** What is registered and not yet closed, last-opened first (tests and start-up logs). */
  names(): string[] {
    return this.closers.map((c) => c.name).reverse();
  }

  /** Runs every closer once, in reverse order; later calls wait for the same run. */
  close(): Promise<void> {
    return (this.closing ??= (async () => {
      let first: unknown = null;
      for (const c of this.closers.splice(0).reverse()) {
        try {
          await c.close();
        } catch (e) {
          this.log(`close ${c.name} failed: ${e instanceof Error ? e.message : String(e)}`);
          first ??= e;
        }
      }
      if (first !== null) throw first;
    })());
  }
}
