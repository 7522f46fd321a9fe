/**
 * The relay serves a solana network only while the pool program deployed there is the
 * one its verifying key belongs to (docs/security.md, "The deployed program").
 * Attackers call the program directly, so the key that decides is the one compiled into
 * it, not the relay's vkey file: the deployed ELF is hashed whole and compared with the
 * committed development build (development key, allowed for the network) or with the
 * program hash the ceremony's verified transcript records. A network marked `production`
 * also refuses an upgrade authority that is neither none nor trusted.
 *
 * At start a refusal stops the start (ConfigError: exit 2). Afterwards the ProgramData
 * header is polled: when it changes (an upgrade, an authority change) the program is read
 * and judged again; a mismatch stops that network's relays (503 RelayPaused with the
 * reason), fails /health and raises the `deployed-program` alert.
 */
import type { AdminNetworkProgram } from "../../src-shared/api/admin";
import type { HealthCheck } from "../ports/chain";
import { NotAProgramError, type DeployedProgram, type DeployedProgramSource, type ProgramDataStamp } from "../ports/deployed-program";
import type { Network } from "../../src-shared/networks";
import type { KeyExpectation } from "../config/verifying-key";
import { ConfigError } from "../config/load";

export interface GuardedNetwork {
  network: Network;
  programId: string;
  allowDevelopmentVerifyingKey: boolean;
  production: boolean;
  trustedUpgradeAuthorities: readonly string[];
  /** How often the ProgramData header is read. */
  watchMs: number;
  source: DeployedProgramSource;
}

/** One network's program as last judged (the console's Health page). */
export interface ProgramState {
  network: Network;
  programId: string;
  deployed: DeployedProgram | null;
  /** Why relays are stopped; null while the program is the expected one. */
  refusal: string | null;
  checkedAt: number;
  /** The last watch read that failed (the RPC), kept until one succeeds. */
  readError: string | null;
}

/** Polls between full re-reads even when the header did not change: a second upgrade within one slot keeps the slot. */
const FULL_READ_EVERY = 12;

/**
 * Why the deployed program must not be served, or null when it may. Every refusal names the
 * deployed hash, the expected one and the key's fingerprint, so the operator can tell
 * which binary is deployed and which one the key needs.
 */
export function judgeProgram(expect: KeyExpectation, net: Omit<GuardedNetwork, "watchMs" | "source">, deployed: DeployedProgram): string | null {
  const n = net.network;
  const names = `deployed program ${net.programId} hashes ${deployed.elfHash}`;
  if (expect.kind === "development") {
    if (!net.allowDevelopmentVerifyingKey) {
      return (
        `the verifying key is the development key (fingerprint ${expect.fingerprint}, published seed: anyone can forge proofs) and ` +
        `networks.${n}.allowDevelopmentVerifyingKey is not set; the ${names}, the committed development build ${expect.programPath} hashes ${expect.programHash}`
      );
    }
    if (deployed.elfHash !== expect.programHash) {
      return (
        `the ${names}, not the committed development build's ${expect.programHash} (${expect.programPath}) that the development key ` +
        `(fingerprint ${expect.fingerprint}) belongs to: the program verifies with a key this relay cannot check. ` +
        `allowDevelopmentVerifyingKey admits the committed development build only`
      );
    }
  } else if (deployed.elfHash !== expect.programHash) {
    return (
      `the ${names}, not ${expect.programHash}, the program the ceremony built for the verifying key (fingerprint ${expect.fingerprint}; ` +
      `final.programSha256 of ${expect.transcriptPath}): the deployed program verifies with another key`
    );
  }
  if (net.production && deployed.upgradeAuthority !== null && !net.trustedUpgradeAuthorities.includes(deployed.upgradeAuthority)) {
    return (
      `networks.${n}.production is set and the ${names} (the expected binary) but its upgrade authority ${deployed.upgradeAuthority} is neither none ` +
      `nor one of networks.${n}.trustedUpgradeAuthorities: whoever holds it could deploy a program that takes the relayer's funds`
    );
  }
  return null;
}

const sameStamp = (a: ProgramDataStamp, b: ProgramDataStamp): boolean =>
  a.exists === b.exists && a.slot === b.slot && a.upgradeAuthority === b.upgradeAuthority;

export class ProgramGuard {
  private readonly states = new Map<Network, ProgramState>();
  private readonly stamps = new Map<Network, ProgramDataStamp>();
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly running = new Set<Promise<void>>();
  private readonly now: () => number;
  private stopped = false;

  constructor(
    private readonly deps: {
      expectation: KeyExpectation;
      networks: readonly GuardedNetwork[];
      log: (line: string) => void;
      /** A network's refusal began (the alert evaluates at once) or ended. */
      onChange?: (network: Network, refusal: string | null) => void;
      now?: () => number;
    },
  ) {
    this.now = deps.now ?? Date.now;
  }

  /** Reads and judges every network's program; throws a ConfigError naming the first refusal (the start exits 2). */
  async check(): Promise<void> {
    for (const net of this.deps.networks) {
      let deployed: DeployedProgram;
      try {
        deployed = await net.source.read();
      } catch (e) {
        if (e instanceof NotAProgramError) throw new ConfigError(`networks.${net.network}.programId`, `the pool program cannot be checked: ${e.message}`);
        // The RPC failed (it answered a moment ago): not a setting, the start fails as a chain that does not answer does.
        throw new Error(`networks.${net.network}: reading pool program ${net.programId} to check it failed (${(e as Error).message})`, { cause: e });
      }
      const refusal = judgeProgram(this.deps.expectation, net, deployed);
      if (refusal) throw new ConfigError(`networks.${net.network}.programId`, `refused: ${refusal}`);
      this.states.set(net.network, { network: net.network, programId: net.programId, deployed, refusal: null, checkedAt: this.now(), readError: null });
      if (deployed.programDataAddress) this.stamps.set(net.network, { exists: true, slot: deployed.slot, upgradeAuthority: deployed.upgradeAuthority });
      const e = this.deps.expectation;
      this.deps.log(
        `${net.network}: pool program ${net.programId} hashes ${deployed.elfHash}: the ${e.kind === "development" ? "committed development build" : "ceremony's program"} ` +
          `for key ${e.fingerprint.slice(0, 16)}; upgrade authority ${deployed.upgradeAuthority ?? "none"}${deployed.programDataAddress ? `; watching ProgramData every ${net.watchMs} ms` : ""}`,
      );
    }
  }

  /** Polls each upgradeable program's header until stop(). */
  watch(): void {
    for (const net of this.deps.networks) {
      if (!this.states.get(net.network)?.deployed?.programDataAddress) continue;
      let polls = 0;
      let busy = false;
      const timer = setInterval(() => {
        if (busy || this.stopped) return;
        busy = true;
        const run = this.poll(net, ++polls % FULL_READ_EVERY === 0).finally(() => {
          busy = false;
          this.running.delete(run);
        });
        this.running.add(run);
      }, net.watchMs);
      timer.unref();
      this.timers.push(timer);
    }
  }

  private async poll(net: GuardedNetwork, full: boolean): Promise<void> {
    const state = this.states.get(net.network)!;
    const address = state.deployed?.programDataAddress;
    if (!address) return;
    try {
      const stamp = await net.source.stamp(address);
      const last = this.stamps.get(net.network);
      if (!full && last && sameStamp(last, stamp) && state.refusal === null) {
        this.states.set(net.network, { ...state, checkedAt: this.now(), readError: null });
        return;
      }
      await this.recheck(net, stamp.exists ? null : `ProgramData ${address} is gone (the program was closed)`);
      // Kept only once judged: a read that failed above is retried at the next poll.
      this.stamps.set(net.network, stamp);
    } catch (e) {
      // The RPC failed: the last verdict stands (relays need the same RPC anyway) until a read succeeds.
      const message = (e as Error).message.split("\n")[0]!.slice(0, 200);
      if (state.readError === null) this.deps.log(`${net.network}: reading the pool program failed (${message}); relays go on under the last check`);
      this.states.set(net.network, { ...this.states.get(net.network)!, readError: message });
    }
  }

  /** Reads the whole program again and judges it; a new refusal stops relays, a pass resumes them. Throws when the RPC fails. */
  private async recheck(net: GuardedNetwork, gone: string | null): Promise<void> {
    const before = this.states.get(net.network)!;
    let deployed: DeployedProgram | null = before.deployed;
    let refusal: string | null = gone;
    if (!gone) {
      try {
        deployed = await net.source.read();
        refusal = judgeProgram(this.deps.expectation, net, deployed);
      } catch (e) {
        if (!(e instanceof NotAProgramError)) throw e;
        refusal = `the pool program cannot be checked: ${e.message}`;
      }
    }
    if (this.stopped) return;
    this.states.set(net.network, { ...before, deployed, refusal, checkedAt: this.now(), readError: null });
    if (refusal !== null && before.refusal !== refusal) {
      this.deps.log(`${net.network}: RELAYS STOPPED: the pool program changed (ProgramData slot ${deployed?.slot ?? "?"}): ${refusal}`);
      this.deps.onChange?.(net.network, refusal);
    } else if (refusal === null && before.refusal !== null) {
      this.deps.log(`${net.network}: relays resumed: the pool program hashes ${deployed?.elfHash} again, the expected binary`);
      this.deps.onChange?.(net.network, null);
    } else if (refusal === null && deployed && before.deployed && deployed.slot !== before.deployed.slot) {
      this.deps.log(`${net.network}: the pool program was redeployed (slot ${deployed.slot}) with the same binary ${deployed.elfHash}`);
    }
  }

  /** Why relays of this network are refused now, or null (the relay answers 503 RelayPaused with it). */
  refusal(network: Network): string | null {
    const r = this.states.get(network)?.refusal;
    return r ? `relays on ${network} are stopped: ${r}` : null;
  }

  state(network: Network): ProgramState | null {
    return this.states.get(network) ?? null;
  }

  /** What the console's Health page shows of a network's program and key. */
  adminView(network: Network): AdminNetworkProgram | null {
    const s = this.states.get(network);
    if (!s) return null;
    const e = this.deps.expectation;
    const c = e.kind === "ceremony" ? e.ceremony : null;
    return {
      key: e.kind,
      vkeyFingerprint: e.fingerprint,
      programHash: s.deployed?.elfHash ?? null,
      expectedHash: e.programHash,
      programId: s.programId,
      deployedSlot: s.deployed?.slot ?? null,
      upgradeAuthority: s.deployed?.upgradeAuthority ?? null,
      ceremony: c
        ? {
            contributions: c.contributions,
            contributors: c.contributors,
            phase1: c.phase1,
            beaconSlot: c.beaconSlot,
            beaconBlockSlot: c.beaconBlockSlot,
            beaconBlockhash: c.beaconBlockhash,
          }
        : null,
      refusal: s.refusal,
      checkedAt: s.checkedAt,
      readError: s.readError,
    };
  }

  /** The networks whose relays are stopped, for the alert. */
  refusals(): { network: Network; refusal: string }[] {
    return [...this.states.values()].flatMap((s) => (s.refusal ? [{ network: s.network, refusal: s.refusal }] : []));
  }

  /** One /health check per guarded network: red while its relays are stopped. */
  health(): HealthCheck[] {
    return [...this.states.values()].map((s) => ({
      name: `program (${s.network})`,
      ok: s.refusal === null,
      detail:
        s.refusal ??
        `pool program ${s.programId} hashes ${s.deployed?.elfHash ?? "?"}, the expected binary${s.readError ? ` (last read failed: ${s.readError})` : ""}`,
    }));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers.splice(0)) clearInterval(t);
    await Promise.all([...this.running]);
  }
}
