/**
 * The operator's run-time settings (pause switches, fee changes, sanctions overrides) are read
 * from the store once and then answered from memory on every relay. With several instances on
 * one store, a change made on one must reach the others: they read the settings again every
 * SETTINGS_REFRESH_MS (docs/scale-out.md). One instance alone has nobody else to hear from.
 */
import type { Stores } from "../ports/stores";
import type { TeardownStack } from "../teardown";

export const SETTINGS_REFRESH_MS = 2_000;

export interface RefreshableSetting {
  name: string;
  refresh(): Promise<void>;
}

/** What every instance answers relays from and reads again: the pause switches, fee changes and sanctions overrides. */
export function sharedSettings(
  admin: { pauses: { refresh(): Promise<void> }; fees: { refresh(): Promise<void> } },
  sanctions: { reloadOverrides(): Promise<void> },
): RefreshableSetting[] {
  return [
    { name: "pause switches", refresh: () => admin.pauses.refresh() },
    { name: "fee changes", refresh: () => admin.fees.refresh() },
    { name: "sanctions overrides", refresh: () => sanctions.reloadOverrides() },
  ];
}

export function startSettingsRefresh(
  stores: Pick<Stores, "engine">,
  settings: readonly RefreshableSetting[],
  log: (line: string) => void,
  stack: TeardownStack,
): void {
  if (stores.engine !== "postgres") return;
  const failing = new Map<string, string>();
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    running ??= Promise.all(
      settings.map((s) =>
        s.refresh().then(
          () => {
            if (failing.delete(s.name)) log(`settings: ${s.name} read from the store again`);
          },
          (e: unknown) => {
            // One line per failure streak: the database's outage is reported by /health already.
            if (!failing.has(s.name)) log(`settings: reading ${s.name} from the store failed: ${(e as Error).message}; kept the last read`);
            failing.set(s.name, (e as Error).message);
          },
        ),
      ),
    )
      .then(() => undefined)
      .finally(() => (running = null));
  }, SETTINGS_REFRESH_MS);
  timer.unref();
  stack.defer("settings refresh", async () => {
    clearInterval(timer);
    await running;
  });
}
