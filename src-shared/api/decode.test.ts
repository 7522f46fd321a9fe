import { describe, expect, it } from "vitest";
import * as adminContracts from "./admin";
import * as alertContracts from "./alerts";
import { array, decodeAt, literal, nullable, number, object, optional, partialRecord, record, string, type Decoder } from "./decode";
import * as publicContracts from "./public";

const refusal = (d: Decoder<unknown>, value: unknown): string => {
  const r = d(value);
  if (r.ok) throw new Error(`accepted ${JSON.stringify(value)}`);
  return r.error;
};

/** Every object contract the three modules export, by name. */
type ObjectContract = Decoder<unknown> & { shape: Record<string, Decoder<unknown> & { optional?: true }> };
const objectContracts = Object.entries({ ...publicContracts, ...adminContracts, ...alertContracts } as Record<string, unknown>).filter(
  (e): e is [string, ObjectContract] => typeof e[1] === "function" && "shape" in e[1],
);

describe("wire contracts refuse a wrong shape with a message naming the field", () => {
  it("finds the contracts to check", () => {
    expect(objectContracts.map(([n]) => n)).toEqual(
      expect.arrayContaining(["healthDetail", "networksAnswer", "feesAnswer", "adminHealth", "adminSettings", "adminAlerts"]),
    );
  });

  it.each(objectContracts)("%s: refuses a non-object, and an empty object by its first required key", (_name, contract) => {
    expect(refusal(contract, [])).toBe("the answer is not an object");
    expect(refusal(contract, null)).toBe("the answer is not an object");
    const first = Object.entries(contract.shape).find(([, d]) => d.optional !== true)![0];
    expect(refusal(contract, {})).toMatch(new RegExp(`^${first} is not `));
  });

  it.each<[string, Decoder<unknown>, unknown, string]>([
    ["a check's ok", publicContracts.healthDetail, { status: "ok", checks: [{ name: "store", ok: "yes", detail: "" }] }, "checks[0].ok is not true or false"],
    ["an unknown status", publicContracts.healthDetail, { status: "fine", checks: [] }, 'status is not one of "ok", "degraded"'],
    [
      "a network's programId",
      publicContracts.networksAnswer,
      { networks: [{ name: "mainnet", backend: "sandbox", sandbox: true }] },
      "networks[0].programId is not a string",
    ],
    ["a relay status other than 200", publicContracts.relaySuccess, { status: 201, signature: "x", changeLeafIndex: 1 }, "status is not one of 200"],
    [
      "a relay without its change leaf (protocol v3)",
      publicContracts.relaySuccess,
      { status: 200, signature: "x" },
      "changeLeafIndex is not a non-negative integer",
    ],
    [
      "a negative change leaf index",
      publicContracts.relaySuccess,
      { status: 200, signature: "x", changeLeafIndex: -1 },
      "changeLeafIndex is not a non-negative integer",
    ],
    ["fee basis points above 10 000", publicContracts.feesAnswer, { default: { bps: 10_001, floor: "1" } }, "default.bps is not basis points"],
    [
      "a pool's floor",
      publicContracts.feesAnswer,
      { default: { bps: 1, floor: "1" }, pools: { mainnet: { M: { bps: 1, floor: "-1" } } } },
      "pools.mainnet.M.floor is not a base-unit amount",
    ],
    [
      "a relayer that is not a key",
      publicContracts.feesAnswer,
      { default: { bps: 1, floor: "1" }, relayers: { mainnet: "nope" } },
      "relayers.mainnet is not a base58 public key or null",
    ],
    [
      "a relay's network",
      adminContracts.adminRelayPage,
      { items: [{ id: "r", kind: "relay", network: "testnet" }], next: null, counts: {}, retentionDays: 30 },
      'items[0].network is not one of "mainnet", "devnet"',
    ],
    [
      "an attempt's verdict",
      adminContracts.adminRelayDetail.shape.attempts,
      [
        {
          n: 1,
          signature: "s",
          blockhash: "b",
          lastValidBlockHeight: 1,
          computeUnitLimit: 1,
          computeUnitPriceMicroLamports: 1,
          networkFeeLamports: 1,
          sentAt: 1,
          broadcasts: 1,
          verdict: "lost",
        },
      ],
      '[0].verdict is not one of "pending", "landed", "failed", "expired", "unknown"',
    ],
    ["a status count", adminContracts.adminRelayPage.shape.counts, { confirmed: "1" }, "confirmed is not a number"],
    ["the store's failure", adminContracts.adminHealth.shape.store, { ok: false, failure: 3 }, "failure is not a string"],
    [
      "the store's engine",
      adminContracts.adminHealth.shape.cluster,
      { engine: "mysql", self: "a", instances: [], leases: [] },
      'engine is not one of "sqljs", "postgres"',
    ],
    [
      "a network an instance follows",
      adminContracts.adminCluster,
      {
        engine: "postgres",
        self: "a",
        instances: [{ id: "a", host: "h", pid: 1, version: "1", startedAt: 1, heartbeatAt: 2, self: true, follows: ["testnet"] }],
        leases: [],
      },
      'instances[0].follows[0] is not one of "mainnet", "devnet"',
    ],
    ["an alert's rule", alertContracts.adminAlerts.shape.active, [{ id: 1, rule: "disk-full" }], "[0].rule is not one of"],
  ])("%s", (_what, contract, value, message) => {
    expect(refusal(contract, value)).toContain(message);
  });
});

describe("the combinators", () => {
  const thing = object({ name: string, size: optional(number), owner: nullable(string), tags: array(literal("a", "b")), per: record(number) });

  it("decode a valid answer, dropping keys they do not declare and keeping optional ones only when present", () => {
    expect(thing({ name: "n", owner: null, tags: ["a"], per: { x: 1 }, extra: true })).toEqual({
      ok: true,
      value: { name: "n", owner: null, tags: ["a"], per: { x: 1 } },
    });
    expect(thing({ name: "n", size: 2, owner: "o", tags: [], per: {} })).toEqual({ ok: true, value: { name: "n", size: 2, owner: "o", tags: [], per: {} } });
  });

  it("name the path of a nested field, and of a value inside a decoder written by hand", () => {
    expect(refusal(object({ outer: object({ inner: array(number) }) }), { outer: { inner: [1, "2"] } })).toBe("outer.inner[1] is not a number");
    const handWritten: Decoder<number> = (v) => (v === 1 ? { ok: true, value: 1 } : { ok: false, error: "expected 1" });
    expect(decodeAt(handWritten, 2, "a.b")).toEqual({ ok: false, error: "a.b: expected 1" });
  });

  it("a partial record keeps only the keys it knows", () => {
    expect(partialRecord(["x", "y"] as const, number)({ x: 1, z: 2 })).toEqual({ ok: true, value: { x: 1 } });
  });
});
