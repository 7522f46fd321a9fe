import { describe, expect, it } from "vitest";
import { withConfigFile } from "../../tests/support/config-file";
import { keyRows } from "./declare";
import { describeConfig } from "./describe";
import { RELAY_CONFIG_KEYS } from "./keys";
import { loadConfig } from "./load";

/** A value for each key keys.ts marks secret, as the file would carry it. */
const SECRET_SAMPLES: Record<string, unknown> = {
  operatorToken: "secret-operator-token-sample-0123",
  "alerts.webhook.url": "https://hooks.example.com/services/SECRET-HOOK-PATH",
  "jupiter.apiKey": "secret-jupiter-api-key-sample",
  "storage.url": "postgres://relay:secret-db-password-sample@db.internal:5432/relay",
};

/** What a key needs beside it to load: PostgreSQL storage serves solana networks only. */
const COMPANIONS: Record<string, Record<string, unknown>> = {
  "storage.url": {
    networks: { mainnet: { backend: "solana", rpcUrl: "http://127.0.0.1:8899" }, devnet: { backend: "solana", rpcUrl: "http://127.0.0.1:8899" } },
  },
};

const nested = (key: string, value: unknown): unknown => key.split(".").reduceRight<unknown>((inner, k) => ({ [k]: inner }), value);

describe("describeConfig and the secrets keys.ts declares", () => {
  const secrets = keyRows(RELAY_CONFIG_KEYS).filter((r) => r.decl.kind === "setting" && r.decl.secret);

  it("has a sample for every secret key", () => {
    expect(secrets.map((r) => r.key).sort()).toEqual(Object.keys(SECRET_SAMPLES).sort());
  });

  it.each(Object.entries(SECRET_SAMPLES))("never prints %s, from the file or its variable", (key, value) => {
    const companions = COMPANIONS[key] ?? {};
    const fromFile = loadConfig(withConfigFile({ ...companions, ...(nested(key, value) as object) }));
    expect(describeConfig(fromFile)).not.toContain(String(value));
    const row = secrets.find((r) => r.key === key);
    const env = row?.decl.kind === "setting" ? row.decl.env : undefined;
    if (env) expect(describeConfig(loadConfig({ ...withConfigFile(companions), [env.name]: String(value) }))).not.toContain(String(value));
  });
});
