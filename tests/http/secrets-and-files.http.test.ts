/**
 * Secrets and files (docs/security.md), against the relay process started as
 * operators start it: an RPC URL is shown by its origin only (start-up lines,
 * /health/detail, /admin/settings); the data dir is 0700 and its files 0600
 * even when the operator made the dir 0755 beforehand; an operator token
 * shorter than 24 characters and a keypair file others can read are refused.
 */
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AdminSettings } from "../../src-shared/api/admin";
import { solanaRelayConfig, startLocalnet, type Localnet } from "../support/localnet";
import { startRelay, type RelayProcess } from "../support/relay-process";

const OPERATOR = "secrets-and-files-operator-token-0123";
const API_KEY = "k3y-0f-the-rpc-provider-9d8e7f";
const posix = process.platform !== "win32";
const modeOf = (p: string): number => statSync(p).mode & 0o777;
const octal = (m: number): string => m.toString(8).padStart(3, "0");

let net: Localnet;
let work: string;
/** The validator's RPC with a provider-style API key in its path (the local validator answers JSON-RPC on any path). */
let keyedRpcUrl: string;
let origin: string;

const configFile = (name: string, content: Record<string, unknown>): string => {
  const f = path.join(work, name);
  writeFileSync(f, JSON.stringify(content));
  return f;
};
const keyedConfig = (keypairFile = net.relayerKeyFile): Record<string, unknown> => {
  const c = solanaRelayConfig(net) as { networks: { mainnet: { rpcUrl: string; solana: { relayerKeypairPath: string } } } };
  c.networks.mainnet.rpcUrl = keyedRpcUrl;
  c.networks.mainnet.solana.relayerKeypairPath = keypairFile;
  return c;
};
const startFails = async (env: Record<string, string>): Promise<string> => {
  const dir = mkdtempSync(path.join(work, "refused-"));
  try {
    const relay = await startRelay(env, dir);
    await relay.stop();
    throw new Error(`the relay started:\n${relay.output()}`);
  } catch (e) {
    return (e as Error).message;
  }
};

beforeAll(async () => {
  net = await startLocalnet();
  work = mkdtempSync(path.join(tmpdir(), "relay-secrets-"));
  origin = new URL(net.validator.rpcUrl).origin;
  keyedRpcUrl = `${origin}/v2/${API_KEY}`;
});
afterAll(async () => {
  await net?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("an RPC URL is shown by its origin only", () => {
  let relay: RelayProcess;
  let dataDir: string;

  beforeAll(async () => {
    // The operator made the data dir beforehand, with the usual umask.
    dataDir = path.join(work, "data");
    mkdirSync(dataDir, { mode: 0o755 });
    if (posix) chmodSync(dataDir, 0o755);
    relay = await startRelay({ RELAY_CONFIG: configFile("keyed.json", keyedConfig()), RELAY_OPERATOR_TOKEN: OPERATOR, RELAY_RATE_LIMITS: "off" }, dataDir);
  });
  afterAll(async () => {
    await relay?.stop();
  });

  it("in the start-up lines", () => {
    const out = relay.output();
    expect(out).toContain(`rpc=${origin}/… `);
    expect(out).toContain(`solana RPC ${origin}/… (`);
    expect(out).not.toContain(API_KEY);
  });

  it("in /health/detail", async () => {
    const res = await fetch(`${relay.url}/health/detail`, { headers: { authorization: `Bearer ${OPERATOR}` } });
    const text = await res.text();
    expect(text).toContain(`solana RPC ${origin}/…`);
    expect(text).not.toContain(API_KEY);
  });

  it("in /admin/settings and /admin/health", async () => {
    const headers = { authorization: `Bearer ${OPERATOR}` };
    const res = await fetch(`${relay.url}/admin/settings`, { headers });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain(API_KEY);
    const settings = JSON.parse(text) as AdminSettings;
    expect(settings.networks.find((n) => n.name === "mainnet")?.rpcUrl).toBe(`${origin}/…`);
    const health = await (await fetch(`${relay.url}/admin/health`, { headers })).text();
    expect(health).not.toContain(API_KEY);
  });

  it.skipIf(!posix)("makes a pre-existing 0755 data dir 0700 and its files 0600, also files an older version left 0644", async () => {
    expect(octal(modeOf(dataDir))).toBe("700");
    expect(octal(modeOf(path.join(dataDir, "relay.journal")))).toBe("600");
    expect(octal(modeOf(path.join(dataDir, "relay.lock")))).toBe("600");
    expect(await relay.stop()).toBe(0);
    expect(octal(modeOf(path.join(dataDir, "relay.sqlite")))).toBe("600");
    const loose = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
        const p = path.join(dir, e.name);
        const extra = modeOf(p) & 0o077 ? [`${p} ${octal(modeOf(p))}`] : [];
        return e.isDirectory() ? [...extra, ...loose(p)] : extra;
      });
    expect(loose(dataDir)).toEqual([]);

    // Files and a dir from before this rule: the next start tightens them.
    chmodSync(dataDir, 0o755);
    for (const f of ["relay.sqlite", "relay.journal"]) chmodSync(path.join(dataDir, f), 0o644);
    relay = await startRelay({ RELAY_CONFIG: path.join(work, "keyed.json"), RELAY_OPERATOR_TOKEN: OPERATOR, RELAY_RATE_LIMITS: "off" }, dataDir);
    expect(octal(modeOf(dataDir))).toBe("700");
    for (const f of ["relay.sqlite", "relay.journal"]) expect(octal(modeOf(path.join(dataDir, f))), f).toBe("600");
  });
});

describe("refused at start", () => {
  it("an operator token of 16 characters, from the environment or the config file (exit 2, naming the key)", async () => {
    const fromEnv = await startFails({ RELAY_OPERATOR_TOKEN: "sixteen-chars-16" });
    expect(fromEnv).toContain("exited with 2");
    expect(fromEnv).toContain("config RELAY_OPERATOR_TOKEN: must be at least 24 characters");
    const fromFile = await startFails({ RELAY_CONFIG: configFile("short-token.json", { operatorToken: "sixteen-chars-16" }) });
    expect(fromFile).toContain("exited with 2");
    expect(fromFile).toContain("config operatorToken: must be at least 24 characters");
  });

  it.skipIf(!posix)("a keypair file others can read, with the chmod command that fixes it", async () => {
    const keyFile = path.join(work, "loose-relayer.json");
    copyFileSync(net.relayerKeyFile, keyFile);
    chmodSync(keyFile, 0o644);
    const message = await startFails({ RELAY_CONFIG: configFile("loose-key.json", keyedConfig(keyFile)), RELAY_OPERATOR_TOKEN: OPERATOR });
    expect(message).toContain(`chmod 600 ${keyFile}`);
    expect(message).toContain("mode 644");
    expect(message).not.toContain("listening on");
  });
});
