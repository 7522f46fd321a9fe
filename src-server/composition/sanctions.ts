/** The sanctions list, loaded for the composition root (compose-relay.ts): its refresh's closer on the root's teardown stack. */
import { configuredListSource } from "../adapters/sanctions-file/configured-source";
import { ReloadingSanctionsList } from "../adapters/sanctions-file/sanctions-list";
import type { RelayConfig } from "../config/schema";
import type { SanctionsStore } from "../ports/sanctions";
import { SanctionsOverrides } from "../services/sanctions-overrides";
import type { TeardownStack } from "../teardown";

export interface Sanctions {
  list: ReloadingSanctionsList;
  /** The operator's additions and removals (console), applied on top of the loaded list. */
  overrides: SanctionsOverrides;
}

/** The configured list (URL or file), refreshed in the background; a start without one goes on, its compliance answers refused. */
export async function loadSanctions(config: RelayConfig, store: SanctionsStore, log: (line: string) => void, stack: TeardownStack): Promise<Sanctions> {
  const list = new ReloadingSanctionsList({
    source: configuredListSource(config.sanctions, config.dataDir),
    store,
    intervalMs: (config.sanctions.url ? config.sanctions.refreshIntervalSec : config.sanctions.filePollSec) * 1000,
    log,
  });
  // The start runs while other steps do (compose-relay.ts): a closer called meanwhile waits for it, or its timer would start after the stop.
  const started = list.start();
  stack.defer("sanctions refresh", async () => {
    await started.catch(() => {});
    list.stop();
  });
  await started;
  const listed = list.status();
  log(
    listed.version
      ? `sanctions: ${listed.count} addresses from ${listed.source} (version ${listed.version})`
      : `sanctions: NO LIST LOADED from ${listed.source} (${listed.lastError}); compliance signatures answer 500 and relays fail until one loads`,
  );
  return { list, overrides: new SanctionsOverrides(store, () => list.reloadOverrides()) };
}

/**
 * loadSanctions, started now and awaited later, while other start steps run: its rejection is
 * not unhandled meanwhile (whoever awaits it still gets it; a start that fails first closes it).
 */
export function loadSanctionsMeanwhile(...args: Parameters<typeof loadSanctions>): Promise<Sanctions> {
  const loading = loadSanctions(...args);
  loading.catch(() => {});
  return loading;
}
