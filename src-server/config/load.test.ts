import path from "node:path";
import { describe, expect, it } from "vitest";
import { configFileWith as fileWith } from "../../tests/support/config-file";
import { ConfigError, describeConfig, loadConfig } from "./load";

describe("loadConfig", () => {
  it("defaults to the sandbox on both networks, port 8080 on 127.0.0.1, and the spec's rate limits", () => {
    const c = loadConfig({});
    expect(c.host).toBe("127.0.0.1");
    expect(c.port).toBe(8080);
    expect(c.networks.mainnet.backend).toBe("sandbox");
    expect(c.networks.devnet.backend).toBe("sandbox");
    expect(c.rateLimits.perEndpoint).toMatchObject({ get_merkle: 60, get_proof: 60, get_node: 120, get_nullifier: 60, relay: 10, relay_swap: 10, revert: 5 });
  });

  it("binds a network to solana with its RPC endpoints and landing settings, keeping the other on the sandbox", () => {
    const f = fileWith(
      JSON.stringify({
        networks: {
          devnet: {
            backend: "solana",
            rpcUrl: "http://127.0.0.1:8899",
            wsUrl: "ws://127.0.0.1:8900",
            solana: {
              commitment: "finalized",
              relayerKeypairPath: "relayer.json",
              maxAttempts: 5,
              lamportsPerUnit: { EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v: "0.0055" },
              minFeePayerLamports: "50000000",
              lookupTables: ["4QzdDqt99LfKJxMDHEUTTCVV6WdKfHZetGC3e4uGJ2Xt"],
            },
          },
        },
      }),
    );
    const c = loadConfig({ RELAY_CONFIG: f });
    expect(c.networks.mainnet.backend).toBe("sandbox");
    const d = c.networks.devnet;
    expect(d).toMatchObject({ backend: "solana", rpcUrl: "http://127.0.0.1:8899", wsUrl: "ws://127.0.0.1:8900" });
    expect(d.solana).toMatchObject({ commitment: "finalized", maxAttempts: 5, minFeePayerLamports: 50_000_000n, computeUnitMargin: 1.2 });
    expect(d.solana.relayerKeypairPath).toBe(path.resolve("relayer.json"));
    // Wrapped SOL keeps its built-in price of 1 lamport per base unit.
    expect(d.solana.lamportsPerUnit).toEqual({ So11111111111111111111111111111111111111112: "1", EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v: "0.0055" });
    expect(c.networks.mainnet.solana.lamportsPerUnit).toEqual({ So11111111111111111111111111111111111111112: "1" });
    // The relay's own lookup tables (pool:lookup-table); none by default.
    expect(d.solana.lookupTables).toEqual(["4QzdDqt99LfKJxMDHEUTTCVV6WdKfHZetGC3e4uGJ2Xt"]);
    expect(c.networks.mainnet.solana.lookupTables).toEqual([]);
  });

  it("reads the deployed-program settings (issue 26): production, trustedUpgradeAuthorities, solana.programWatchMs, verifier.minContributions, with their defaults", () => {
    const d = loadConfig({});
    expect([
      d.networks.mainnet.production,
      d.networks.mainnet.trustedUpgradeAuthorities,
      d.networks.mainnet.solana.programWatchMs,
      d.verifier.minContributions,
    ]).toEqual([undefined, undefined, 5000, 3]);
    const authority = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";
    const c = loadConfig({
      RELAY_CONFIG: fileWith(
        JSON.stringify({
          networks: { mainnet: { production: true, trustedUpgradeAuthorities: [authority], solana: { programWatchMs: 2000 } } },
          verifier: { minContributions: 5 },
        }),
      ),
    });
    expect([
      c.networks.mainnet.production,
      c.networks.mainnet.trustedUpgradeAuthorities,
      c.networks.mainnet.solana.programWatchMs,
      c.verifier.minContributions,
    ]).toEqual([true, [authority], 2000, 5]);
    const bad = (json: unknown) => () => loadConfig({ RELAY_CONFIG: fileWith(JSON.stringify(json)) });
    expect(bad({ networks: { mainnet: { production: "yes" } } })).toThrow("config networks.mainnet.production: must be true/false");
    expect(bad({ networks: { mainnet: { trustedUpgradeAuthorities: authority } } })).toThrow(
      "config networks.mainnet.trustedUpgradeAuthorities: must be an array",
    );
    expect(bad({ networks: { mainnet: { trustedUpgradeAuthorities: ["nope"] } } })).toThrow(/config networks\.mainnet\.trustedUpgradeAuthorities\[0\]/);
    expect(bad({ verifier: { minContributions: 0 } })).toThrow(/config verifier\.minContributions/);
  });

  it("takes several RPC endpoints in rpcUrls (the first is rpcUrl), or one in rpcUrl, and prints each by origin only", () => {
    const f = fileWith(
      JSON.stringify({
        networks: {
          mainnet: { backend: "solana", rpcUrls: ["https://a.example.com/v2/SECRET1", "https://b.example.com/?api-key=SECRET2"], solana: { rpcProbeMs: 1000 } },
        },
      }),
    );
    const c = loadConfig({ RELAY_CONFIG: f });
    expect(c.networks.mainnet).toMatchObject({
      rpcUrl: "https://a.example.com/v2/SECRET1",
      rpcUrls: ["https://a.example.com/v2/SECRET1", "https://b.example.com/?api-key=SECRET2"],
    });
    expect(c.networks.mainnet.solana.rpcProbeMs).toBe(1000);
    const text = describeConfig(c);
    expect(text).toContain("rpc=https://a.example.com/…,https://b.example.com/…");
    expect(text).not.toMatch(/SECRET/);
    const one = loadConfig({ RELAY_CONFIG: fileWith(JSON.stringify({ networks: { mainnet: { backend: "solana", rpcUrl: "http://127.0.0.1:8899" } } })) });
    expect(one.networks.mainnet.rpcUrls).toEqual(["http://127.0.0.1:8899"]);
  });

  it("prints an RPC URL's origin only (API keys ride in the path or the query)", () => {
    for (const rpcUrl of ["https://rpc.example.com/?api-key=SECRET123", "https://rpc.example.com/v2/SECRET123", "https://me:SECRET123@rpc.example.com/"]) {
      const f = fileWith(JSON.stringify({ networks: { mainnet: { backend: "solana", rpcUrl } } }));
      const text = describeConfig(loadConfig({ RELAY_CONFIG: f }));
      expect(text).toMatch(/rpc=https:\/\/rpc\.example\.com(\/…)? /);
      expect(text).not.toContain("SECRET123");
    }
  });

  it("lets the environment win over the file", () => {
    const f = fileWith(JSON.stringify({ port: 9000, host: "0.0.0.0" }));
    const c = loadConfig({ RELAY_CONFIG: f, RELAY_PORT: "0" });
    expect(c.port).toBe(0);
    expect(c.host).toBe("0.0.0.0");
  });

  it.each([
    [{ RELAY_PORT: "http" }, "RELAY_PORT"],
    [{ RELAY_PORT: "70000" }, "RELAY_PORT"],
    [{ RELAY_OPERATOR_TOKEN: "short" }, "RELAY_OPERATOR_TOKEN"],
    [{ RELAY_OPERATOR_TOKEN: "sixteen-chars-16" }, "RELAY_OPERATOR_TOKEN: must be at least 24 characters"],
    [{ RELAY_RATE_LIMITS: "maybe" }, "RELAY_RATE_LIMITS"],
    [{ RELAY_PROGRAM_ID: "not-a-key" }, "RELAY_PROGRAM_ID"],
  ])("names the bad variable %o", (env, key) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(key);
  });

  it.each([
    ["{ not json", "RELAY_CONFIG"],
    ["[1,2]", "RELAY_CONFIG"],
    [JSON.stringify({ prot: 1 }), "prot"],
    [JSON.stringify({ networks: { testnet: {} } }), "networks.testnet"],
    [JSON.stringify({ networks: { mainnet: { backend: "ethereum" } } }), "networks.mainnet.backend"],
    [JSON.stringify({ networks: { devnet: { pools: ["bad"] } } }), "networks.devnet.pools[0]"],
    [JSON.stringify({ auth: { tokenTtlSec: 0 } }), "auth.tokenTtlSec"],
    [JSON.stringify({ rateLimits: { perEndpoint: { get_merkle: 1.5 } } }), "rateLimits.perEndpoint.get_merkle"],
    [JSON.stringify({ http: { bodyLimitBytes: "big" } }), "http.bodyLimitBytes"],
    [JSON.stringify({ sanctions: { url: "http://lists.example.com/sol.txt" } }), "sanctions.url"],
    [JSON.stringify({ sanctions: { url: "ftp://127.0.0.1/sol.txt" } }), "sanctions.url"],
    [JSON.stringify({ sanctions: { url: 5 } }), "sanctions.url"],
    [JSON.stringify({ sanctions: { refreshIntervalSec: 0 } }), "sanctions.refreshIntervalSec"],
    [JSON.stringify({ sanctions: { filePollSec: "often" } }), "sanctions.filePollSec"],
    [JSON.stringify({ sanctions: { fetchTimeoutSec: 301 } }), "sanctions.fetchTimeoutSec"],
    [JSON.stringify({ sanctions: { path: "x" } }), "sanctions.path"],
    [JSON.stringify({ networks: { devnet: { backend: "solana" } } }), "networks.devnet.rpcUrl"],
    [JSON.stringify({ networks: { devnet: { backend: "solana", rpcUrl: "ws://127.0.0.1:8899" } } }), "networks.devnet.rpcUrl"],
    [JSON.stringify({ networks: { devnet: { wsUrl: "http://127.0.0.1:8900" } } }), "networks.devnet.wsUrl"],
    [JSON.stringify({ networks: { devnet: { backend: "solana", rpcUrls: [] } } }), "networks.devnet.rpcUrls"],
    [JSON.stringify({ networks: { devnet: { backend: "solana", rpcUrls: ["http://127.0.0.1:8899", "ws://127.0.0.1:8900"] } } }), "networks.devnet.rpcUrls[1]"],
    [JSON.stringify({ networks: { devnet: { backend: "solana", rpcUrls: ["http://127.0.0.1:8899", "http://127.0.0.1:8899"] } } }), "networks.devnet.rpcUrls"],
    [
      JSON.stringify({ networks: { devnet: { backend: "solana", rpcUrl: "http://127.0.0.1:8899", rpcUrls: ["http://127.0.0.1:8898"] } } }),
      "networks.devnet.rpcUrls",
    ],
    [JSON.stringify({ networks: { devnet: { solana: { rpcProbeMs: 10 } } } }), "networks.devnet.solana.rpcProbeMs"],
    [JSON.stringify({ networks: { devnet: { solana: { commitment: "max" } } } }), "networks.devnet.solana.commitment"],
    [JSON.stringify({ networks: { devnet: { solana: { computeUnitMargin: 0.5 } } } }), "networks.devnet.solana.computeUnitMargin"],
    [
      JSON.stringify({ networks: { devnet: { solana: { lamportsPerUnit: { EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v: 0.005 } } } } }),
      "networks.devnet.solana.lamportsPerUnit",
    ],
    [JSON.stringify({ networks: { devnet: { solana: { minFeePayerLamports: -1 } } } }), "networks.devnet.solana.minFeePayerLamports"],
    [JSON.stringify({ networks: { devnet: { solana: { keypair: "x" } } } }), "networks.devnet.solana.keypair"],
    [
      JSON.stringify({ networks: { devnet: { solana: { lookupTables: "4QzdDqt99LfKJxMDHEUTTCVV6WdKfHZetGC3e4uGJ2Xt" } } } }),
      "networks.devnet.solana.lookupTables",
    ],
    [JSON.stringify({ networks: { devnet: { solana: { lookupTables: ["not-a-key"] } } } }), "networks.devnet.solana.lookupTables[0]"],
    [JSON.stringify({ logs: { requests: "reads" } }), "logs.requests"],
  ])("names the bad key of file %s", (content, key) => {
    const f = fileWith(content);
    expect(() => loadConfig({ RELAY_CONFIG: f })).toThrow(key);
  });

  it("takes a sanctions URL over https, or http on loopback only, from the file or RELAY_SANCTIONS_URL", () => {
    const d = loadConfig({});
    expect(d.sanctions).toMatchObject({ url: null, refreshIntervalSec: 3600, filePollSec: 2, fetchTimeoutSec: 15 });
    expect(d.sanctions.file).toMatch(/resources[\\/]sanctions[\\/]sanctioned_addresses_SOL\.txt$/);
    const f = fileWith(JSON.stringify({ sanctions: { url: "https://lists.example.com/sol.txt", refreshIntervalSec: 60, fetchTimeoutSec: 5 } }));
    expect(loadConfig({ RELAY_CONFIG: f }).sanctions).toMatchObject({ url: "https://lists.example.com/sol.txt", refreshIntervalSec: 60, fetchTimeoutSec: 5 });
    expect(loadConfig({ RELAY_SANCTIONS_URL: "http://127.0.0.1:9000/sol.txt" }).sanctions.url).toBe("http://127.0.0.1:9000/sol.txt");
    expect(() => loadConfig({ RELAY_SANCTIONS_URL: "http://10.1.2.3/sol.txt" })).toThrow("RELAY_SANCTIONS_URL");
    expect(loadConfig({ RELAY_CONFIG: f, RELAY_SANCTIONS_URL: "" }).sanctions.url).toBeNull();
    expect(loadConfig({ RELAY_SANCTIONS_FILE: "other.txt" }).sanctions.file).toBe(path.resolve("other.txt"));
  });

  it("never prints a sanctions URL's credentials or query", () => {
    const c = loadConfig({ RELAY_SANCTIONS_URL: "https://user:pw@lists.example.com/sol.txt?token=abc" });
    const text = describeConfig(c);
    expect(text).toContain("https://lists.example.com/… every");
    expect(text).not.toMatch(/pw|abc|sol\.txt/);
  });

  it("gives relay_swap the spec's slippage guidance by default and per pair from the file, in either order", () => {
    const d = loadConfig({});
    expect(d.swap).toEqual({
      stablecoins: ["EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB"],
      defaultClass: "standard",
      pairs: {},
    });
    const SOL = "So11111111111111111111111111111111111111112";
    const BONK = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263";
    const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
    const f = fileWith(JSON.stringify({ swap: { defaultClass: "volatile", pairs: { [`${BONK}/${SOL}`]: "lowLiquidity", [`${SOL}/${USDC}`]: 75 } } }));
    const c = loadConfig({ RELAY_CONFIG: f });
    expect(c.swap.defaultClass).toBe("volatile");
    expect(c.swap.pairs).toEqual({
      [SOL < BONK ? `${SOL}/${BONK}` : `${BONK}/${SOL}`]: { bps: 300, class: "lowLiquidity" },
      [SOL < USDC ? `${SOL}/${USDC}` : `${USDC}/${SOL}`]: { bps: 75, class: "custom" },
    });
  });

  it("reads the Jupiter venue from the file and RELAY_JUPITER_*, and never prints the API key", () => {
    expect(loadConfig({}).jupiter).toEqual({
      baseUrl: "https://api.jup.ag/swap/v1",
      apiKey: null,
      timeoutMs: 10_000,
      restrictIntermediateTokens: true,
      programIds: ["JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4"],
    });
    const programIds = ["JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4", "CpSwap11111111111111111111111111111111111111"];
    const f = fileWith(
      JSON.stringify({
        jupiter: { baseUrl: "http://127.0.0.1:9999/swap/v1", apiKey: "from-file", timeoutMs: 2500, restrictIntermediateTokens: false, programIds },
      }),
    );
    expect(loadConfig({ RELAY_CONFIG: f }).jupiter).toEqual({
      baseUrl: "http://127.0.0.1:9999/swap/v1",
      apiKey: "from-file",
      timeoutMs: 2500,
      restrictIntermediateTokens: false,
      programIds,
    });
    const c = loadConfig({ RELAY_CONFIG: f, RELAY_JUPITER_API_KEY: "jup-secret-key-42", RELAY_JUPITER_URL: "https://jup.example.com/swap/v1" });
    expect(c.jupiter).toMatchObject({ apiKey: "jup-secret-key-42", baseUrl: "https://jup.example.com/swap/v1" });
    expect(describeConfig(c)).toContain("jupiter https://jup.example.com/… (api key set, hidden)");
    expect(describeConfig(c)).not.toContain("jup-secret-key-42");
    expect(loadConfig({ RELAY_CONFIG: f, RELAY_JUPITER_API_KEY: "" }).jupiter.apiKey).toBeNull();
  });

  it.each([
    [{ swap: { stablecoins: ["nope"] } }, "swap.stablecoins[0]"],
    [{ swap: { defaultClass: "wild" } }, "swap.defaultClass"],
    [{ swap: { pairs: { So11111111111111111111111111111111111111112: 50 } } }, "swap.pairs.So11111111111111111111111111111111111111112"],
    [{ swap: { pairs: { "So11111111111111111111111111111111111111112/So11111111111111111111111111111111111111112": 50 } } }, "swap.pairs.So111"],
    [{ swap: { pairs: { "So11111111111111111111111111111111111111112/EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v": "huge" } } }, "swap.pairs.So111"],
    [{ swap: { pairs: { "So11111111111111111111111111111111111111112/EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v": 10_001 } } }, "swap.pairs.So111"],
    [
      {
        swap: {
          pairs: {
            "So11111111111111111111111111111111111111112/EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v": 10,
            "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v/So11111111111111111111111111111111111111112": 20,
          },
        },
      },
      "is set twice",
    ],
    [{ swap: { slippage: 1 } }, "swap.slippage"],
    [{ jupiter: { baseUrl: "http://jup.example.com" } }, "jupiter.baseUrl"],
    [{ jupiter: { apiKey: "has space" } }, "jupiter.apiKey"],
    [{ jupiter: { timeoutMs: 5 } }, "jupiter.timeoutMs"],
    [{ jupiter: { restrictIntermediateTokens: "maybe" } }, "jupiter.restrictIntermediateTokens"],
    [{ jupiter: { key: "x" } }, "jupiter.key"],
    [{ jupiter: { programIds: [] } }, "jupiter.programIds"],
    [{ jupiter: { programIds: ["nope"] } }, "jupiter.programIds[0]"],
  ])("names the bad swap or jupiter key of %j", (content, key) => {
    const f = fileWith(JSON.stringify(content));
    expect(() => loadConfig({ RELAY_CONFIG: f })).toThrow(key);
  });

  it("wants an operator token of at least 24 characters, from the environment or the file", () => {
    expect(loadConfig({ RELAY_OPERATOR_TOKEN: "a".repeat(24) }).operatorToken).toBe("a".repeat(24));
    expect(() => loadConfig({ RELAY_OPERATOR_TOKEN: "a".repeat(23) })).toThrow("config RELAY_OPERATOR_TOKEN: must be at least 24 characters, got 23");
    expect(loadConfig({ RELAY_CONFIG: fileWith(JSON.stringify({ operatorToken: "b".repeat(24) })) }).operatorToken).toBe("b".repeat(24));
    expect(() => loadConfig({ RELAY_CONFIG: fileWith(JSON.stringify({ operatorToken: "sixteen-chars-16" })) })).toThrow(
      "config operatorToken: must be at least 24 characters, got 16",
    );
  });

  it("never prints the operator token", () => {
    const c = loadConfig({ RELAY_OPERATOR_TOKEN: "super-secret-operator-token-123" });
    expect(describeConfig(c)).not.toContain("super-secret");
  });
});
