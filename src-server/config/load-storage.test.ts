import { describe, expect, it } from "vitest";
import { configFileWith as fileWith } from "../../tests/support/config-file";
import { ConfigError, describeConfig, loadConfig } from "./load";

const SECRET_URL = "postgres://relay:hunter2-secret@db.internal:5432/relay";
/** Both networks on solana: the only kind PostgreSQL storage serves. */
const solanaNetworks = {
  mainnet: { backend: "solana", rpcUrl: "http://127.0.0.1:8899" },
  devnet: { backend: "solana", rpcUrl: "http://127.0.0.1:8899" },
};

describe("loadConfig: storage", () => {
  it("keeps the embedded sql.js store by default", () => {
    const c = loadConfig({});
    expect(c.storage).toMatchObject({ kind: "sqljs", url: null, poolSize: 10 });
  });

  it("takes RELAY_DATABASE_URL alone as PostgreSQL storage", () => {
    const c = loadConfig({ RELAY_DATABASE_URL: SECRET_URL, RELAY_CONFIG: fileWith(JSON.stringify({ networks: solanaNetworks })) });
    expect(c.storage.kind).toBe("postgres");
    expect(c.storage.url).toBe(SECRET_URL);
  });

  it("takes storage.kind postgres with its url from the file", () => {
    const c = loadConfig({ RELAY_CONFIG: fileWith(JSON.stringify({ networks: solanaNetworks, storage: { kind: "postgres", url: SECRET_URL, poolSize: 4 } })) });
    expect(c.storage).toMatchObject({ kind: "postgres", url: SECRET_URL, poolSize: 4 });
  });

  it("refuses PostgreSQL storage without a URL, and a URL with the sql.js store named", () => {
    expect(() => loadConfig({ RELAY_CONFIG: fileWith(JSON.stringify({ networks: solanaNetworks, storage: { kind: "postgres" } })) })).toThrow(
      /storage\.url.*required/,
    );
    expect(() => loadConfig({ RELAY_DATABASE_URL: SECRET_URL, RELAY_CONFIG: fileWith(JSON.stringify({ storage: { kind: "sqljs" } })) })).toThrow(
      /storage\.url.*only read/,
    );
  });

  it("refuses a sandbox network on PostgreSQL storage, naming the network", () => {
    const run = () => loadConfig({ RELAY_DATABASE_URL: SECRET_URL });
    expect(run).toThrow(ConfigError);
    expect(run).toThrow(/networks\.mainnet: a sandbox network cannot run on PostgreSQL/);
  });

  it("refuses a URL that is not postgres://host/database, without repeating it", () => {
    for (const bad of ["mysql://u:p@h/db", "postgres://u:hunter2-secret@h:5432/", "not a url hunter2-secret"]) {
      let message = "";
      try {
        loadConfig({ RELAY_DATABASE_URL: bad, RELAY_CONFIG: fileWith(JSON.stringify({ networks: solanaNetworks })) });
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message).toMatch(/RELAY_DATABASE_URL: must/);
      expect(message).not.toContain("hunter2-secret");
    }
  });

  it("never prints the database URL (it may hold the password)", () => {
    const c = loadConfig({ RELAY_DATABASE_URL: SECRET_URL, RELAY_CONFIG: fileWith(JSON.stringify({ networks: solanaNetworks })) });
    expect(describeConfig(c)).not.toContain("hunter2-secret");
  });
});
