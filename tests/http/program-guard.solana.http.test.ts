/**
 * The relay checks the pool program deployed on its solana network, whole (issue 26; docs/security.md, "The deployed program"): the real relay process against the local
 * validator, with the pool program built for a new key (tests/support/ceremony-key.ts: the
 * development zkey plus one phase-2 contribution; build:programs --vkey), that key's vkey and
 * a ceremony.json signed by three test contributors beside it. A refusal at start is exit 2
 * naming both hashes and the key's fingerprint; an upgrade to another binary stops relays
 * (503 RelayPaused), turns /health red and fires the deployed-program alert.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { Keypair } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildPoolForKey } from "../../tools/sbf/build";
import { POOL_SO } from "../../src-localnet/programs";
import type { AdminAlerts } from "../../src-shared/api/alerts";
import type { AdminHealth } from "../../src-shared/api/admin";
import { programElfHash } from "../../src-shared/ceremony/program-hash";
import { initializePoolInstructions } from "../../src-shared/pool-program";
import { DEVELOPMENT_VKEY_FINGERPRINT } from "../../src-server/config/verifying-key";
import { ceremonyTestKey, type CeremonyTestKey } from "../support/ceremony-key";
import { signedTranscript, writeKeyDir } from "../support/ceremony-transcript";
import { configFile } from "../support/compliance";
import { solanaRelayConfig, startLocalnet, type Localnet } from "../support/localnet";
import { startRelay, type RelayProcess } from "../support/relay-process";
import { USDC } from "../support/sandbox";
import { post } from "../support/wallet";

const TOKEN = "program-guard-operator-token-7c1e";

describe("the relay checks the deployed pool program (local validator)", () => {
  let net: Localnet;
  let key: CeremonyTestKey;
  let ceremonySo: Uint8Array;
  let ceremonyKeyPath: string;
  const devSo = new Uint8Array(readFileSync(POOL_SO));
  const devHash = programElfHash(devSo);
  let ceremonyHash: string;

  beforeAll(async () => {
    net = await startLocalnet({ pools: [USDC] });
    key = await ceremonyTestKey();
    const built = buildPoolForKey({ vkey: { path: key.vkeyPath } });
    ceremonySo = built.so;
    ceremonyHash = programElfHash(ceremonySo);
    expect(built.fingerprint).toBe(key.fingerprint);
    ceremonyKeyPath = writeKeyDir(
      path.join(net.dir, "ceremony-key"),
      key.vkey,
      signedTranscript({ vkeyFingerprint: key.fingerprint, programSha256: ceremonyHash }),
    );
  });
  afterAll(async () => {
    await net?.close();
  });

  /** The localnet relay config with this key file; allowDevelopmentVerifyingKey only when asked. */
  const config = (vkeyPath: string | null, allowDev: boolean, mainnet: Record<string, unknown> = {}): string => {
    const c = solanaRelayConfig(net, { programWatchMs: 100 }) as { networks: { mainnet: Record<string, unknown> } };
    Object.assign(c.networks.mainnet, { allowDevelopmentVerifyingKey: allowDev }, mainnet);
    return configFile({
      ...c,
      ...(vkeyPath ? { verifier: { vkeyPath } } : {}),
      auth: { requireRelayAuth: false },
      alerts: { evaluateSec: 1 },
    });
  };
  const startFails = async (cfg: string): Promise<string> => {
    let relay: RelayProcess | undefined;
    try {
      relay = await startRelay({ RELAY_CONFIG: cfg });
    } catch (e) {
      return (e as Error).message;
    }
    await relay.stop();
    relay.cleanup();
    throw new Error(`the relay started:\n${relay.output()}`);
  };

  it("starts with the ceremony's program and key, and shows the key's fingerprint, the program hash, the contributions and the beacon", async () => {
    await net.validator.deployProgram(ceremonySo);
    const relay = await startRelay({ RELAY_CONFIG: config(ceremonyKeyPath, false), RELAY_OPERATOR_TOKEN: TOKEN });
    try {
      expect(relay.output()).toContain(
        `mainnet: pool program ${net.programId} hashes ${ceremonyHash}: the ceremony's program for key ${key.fingerprint.slice(0, 16)}`,
      );
      const health = (await (await fetch(`${relay.url}/admin/health`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as AdminHealth;
      const mainnet = health.networks.find((n) => n.name === "mainnet")!;
      expect(mainnet.developmentVerifyingKey).toBe(false);
      expect(mainnet.program).toMatchObject({
        key: "ceremony",
        vkeyFingerprint: key.fingerprint,
        programHash: ceremonyHash,
        expectedHash: ceremonyHash,
        upgradeAuthority: net.relayer.publicKey.toBase58(),
        refusal: null,
        ceremony: { contributions: 3, beaconSlot: 1000, beaconBlockSlot: 1001 },
      });
      expect(mainnet.program!.ceremony!.beaconBlockhash).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    } finally {
      await relay.stop();
      relay.cleanup();
    }
  });

  it("stops relaying after an upgrade to another binary: 503 RelayPaused, /health red, the deployed-program alert fires", async () => {
    await net.validator.deployProgram(ceremonySo);
    const relay = await startRelay({ RELAY_CONFIG: config(ceremonyKeyPath, false), RELAY_OPERATOR_TOKEN: TOKEN });
    try {
      // A well-formed relay of nothing: refused on its root while the program is the key's, before any proof is verified.
      const body = {
        nullifierHash: Array.from({ length: 32 }, (_, i) => (i === 31 ? 7 : 0)),
        proof: Array.from({ length: 256 }, () => 1),
        root: Array.from({ length: 32 }, (_, i) => (i === 31 ? 9 : 0)),
        recipient: net.relayer.publicKey.toBase58(),
        depth: 32,
        depositSize: 1000,
        mint: USDC,
        changeCommitment: Array.from({ length: 32 }, (_, i) => (i === 31 ? 5 : 0)),
      };
      expect((await post(`${relay.url}/relay`, body)).json).toMatchObject({ status: 400, error: "InvalidRoot" });

      // The upgrade: the committed development build (another key) at the same program id.
      await net.validator.deployProgram(devSo);
      const deadline = Date.now() + 20_000;
      let answer = await post(`${relay.url}/relay`, body);
      while (answer.status !== 503 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        answer = await post(`${relay.url}/relay`, body);
      }
      expect(answer.status).toBe(503);
      expect(answer.json).toMatchObject({ status: 503, error: "RelayPaused" });
      const message = (answer.json as { message: string }).message;
      expect(message).toContain(`relays on mainnet are stopped: the deployed program ${net.programId} hashes ${devHash}, not ${ceremonyHash}`);
      expect(message).toContain(key.fingerprint);

      const health = await fetch(`${relay.url}/health/detail`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(health.status).toBe(503);
      expect(await health.text()).toContain("program (mainnet)");
      let alerts: AdminAlerts | null = null;
      for (let i = 0; i < 100; i++) {
        alerts = (await (await fetch(`${relay.url}/admin/alerts`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as AdminAlerts;
        if (alerts.active.some((a) => a.rule === "deployed-program")) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(alerts!.active).toEqual([
        expect.objectContaining({ rule: "deployed-program", subject: "mainnet", detail: expect.stringContaining(devHash) as string }),
      ]);
      expect(relay.output()).toContain("alert firing: deployed-program/mainnet");
      expect(relay.output()).toContain("mainnet: RELAYS STOPPED: the pool program changed");
    } finally {
      await relay.stop();
      relay.cleanup();
    }
  });

  it("refuses the committed development program without allowDevelopmentVerifyingKey (exit 2)", async () => {
    await net.validator.deployProgram(devSo);
    const message = await startFails(config(null, false));
    expect(message).toContain("relay exited with 2 before listening");
    expect(message).toContain("config networks.mainnet.allowDevelopmentVerifyingKey: is not set");
  });

  it("refuses a key that does not belong to the deployed program even with allowDevelopmentVerifyingKey, naming both hashes and the fingerprint", async () => {
    // The ceremony's key over the committed development program.
    await net.validator.deployProgram(devSo);
    const ceremonyOverDev = await startFails(config(ceremonyKeyPath, true));
    expect(ceremonyOverDev).toContain("relay exited with 2 before listening");
    expect(ceremonyOverDev).toContain(
      `config networks.mainnet.programId: refused: the deployed program ${net.programId} hashes ${devHash}, not ${ceremonyHash}`,
    );
    expect(ceremonyOverDev).toContain(`fingerprint ${key.fingerprint}`);
    // The development key over the ceremony's program.
    await net.validator.deployProgram(ceremonySo);
    const devOverCeremony = await startFails(config(null, true));
    expect(devOverCeremony).toContain("relay exited with 2 before listening");
    expect(devOverCeremony).toContain(`hashes ${ceremonyHash}, not the committed development build's ${devHash}`);
    expect(devOverCeremony).toContain(`fingerprint ${DEVELOPMENT_VKEY_FINGERPRINT}`);
  });

  it("refuses a program that carries the ceremony's key as dead data but runs the development build's code (its key)", async () => {
    // The development program, with the whole ceremony program (its key included) appended as bytes nothing executes.
    const decoy = new Uint8Array(devSo.length + ceremonySo.length);
    decoy.set(devSo);
    decoy.set(ceremonySo, devSo.length);
    await net.validator.deployProgram(decoy);
    // It is a working pool program: the runtime loads it and it opens a pool.
    const mint = Keypair.generate().publicKey.toBase58();
    await net.validator.createMint(mint);
    await net.send(initializePoolInstructions({ programId: net.programId, authority: net.relayer.publicKey.toBase58(), mint, minDeposit: 1n }), [net.relayer]);
    const decoyHash = programElfHash(decoy);
    const message = await startFails(config(ceremonyKeyPath, true));
    expect(message).toContain("relay exited with 2 before listening");
    expect(message).toContain(`hashes ${decoyHash}, not ${ceremonyHash}`);
    // Nor does the development key's setting let it through: it is not the committed build either.
    expect(await startFails(config(null, true))).toContain(`hashes ${decoyHash}, not the committed development build's ${devHash}`);
  });

  it("on a production network refuses the right program while its upgrade authority is not a trusted one", async () => {
    await net.validator.deployProgram(ceremonySo);
    const relayer = net.relayer.publicKey.toBase58();
    const message = await startFails(config(ceremonyKeyPath, false, { production: true }));
    expect(message).toContain("relay exited with 2 before listening");
    expect(message).toContain(
      `hashes ${ceremonyHash} (the expected binary) but its upgrade authority ${relayer} is neither none nor one of networks.mainnet.trustedUpgradeAuthorities`,
    );
    const relay = await startRelay({ RELAY_CONFIG: config(ceremonyKeyPath, false, { production: true, trustedUpgradeAuthorities: [relayer] }) });
    await relay.stop();
    relay.cleanup();
  });
});
