import { parsePublicKey } from "../encoding/base58";
import { isCanonicalField } from "../encoding/field";
import { err, ok, type Result } from "../result";
import {
  array,
  boolean,
  decimalText,
  decodeAt,
  decoder,
  isRecord,
  nullable,
  literal,
  nonNegInt,
  object,
  optional,
  record,
  string,
  type Decoder,
  type Infer,
} from "./decode";

/**
 * The public API's answers (the API summary in README.md, sandbox endpoints included): each declared
 * once as a decoder (src-shared/api/decode.ts), read by the SDK and the console, its type used by the
 * server to build the answer. Byte arrays arrive as number[] on the wire and are handed out as
 * Uint8Array, and fee floors as bigint: for those answers the decoded type is the reader's.
 */

export interface MerkleState {
  address: string;
  json: { root: Uint8Array; nextIndex: number; depth: number };
}

export interface MerkleProof {
  address: string;
  json: { path: Uint8Array[]; indices: number[] };
}

export interface MerkleNode {
  address: string;
  json: { value: Uint8Array };
}

/**
 * POST /get_leaves (protocol v3): a page of the pool's leaves with what the chain made public about
 * each, its kind and a deposit's amount (decimal text; null for a change leaf, whose value is private,
 * and for a deposit whose amount the relay's store does not have). `from` is the first index asked;
 * the leaves are consecutive from it and stop before `nextIndex`.
 */
export const leafListEntry = object({ index: nonNegInt, kind: literal("deposit", "change"), amount: nullable(decimalText) });
export type LeafListEntry = Infer<typeof leafListEntry>;
export const leafList = object({ address: string, json: object({ nextIndex: nonNegInt, from: nonNegInt, leaves: array(leafListEntry) }) });
export type LeafList = Infer<typeof leafList>;

/** Spec: `{address:null, json:null}` when not spent. */
export type NullifierStatus = { address: null; json: null } | { address: string; json: { spent: true } };

/**
 * POST /relay and /relay_swap when the withdrawal landed (the HTTP status equals the body's).
 * `changeLeafIndex` (protocol v3): where the withdrawal's change leaf went, so a
 * wallet finds its change note without racing other deposits.
 */
export const relaySuccess = object({ status: literal(200), signature: string, changeLeafIndex: nonNegInt });
export type RelaySuccess = Infer<typeof relaySuccess>;

/** One hop of a quote's route; Jupiter may leave out the fee fields. */
export interface SwapRouteStep {
  swapInfo: {
    ammKey: string;
    label: string;
    inputMint: string;
    outputMint: string;
    inAmount: string;
    outAmount: string;
    feeAmount?: string;
    feeMint?: string;
  };
  percent: number | null;
}

/** POST /jupiter's answer: amounts as decimal text, priceImpactPct in percent (1 = 1 %). */
export interface SwapQuote {
  inputMint: string;
  outputMint: string;
  inAmount: string;
  outAmount: string;
  priceImpactPct: number;
  routePlan: SwapRouteStep[];
  /** This relay's additions: the least output the quote's slippage allows, and that slippage. */
  otherAmountThreshold?: string;
  slippageBps?: number;
}

/** A compliance signature as the relay answers it: `<expiresAtUnix>.<base58 signature>`; `raw` is what a relay submission carries. */
export interface OfacSignature {
  raw: string;
  expiresAt: number | null;
  signature: string | null;
}

/** GET /compliance/public_key: the key compliance signatures verify against, and the signed text's form. */
export interface CompliancePublicKey {
  publicKey: string;
  algorithm: "ed25519";
  /** `OFAC:<network>:<wallet>:<expiresAtUnix>` */
  message: string;
  validitySec: number | null;
}

export interface HealthAnswer {
  healthy: boolean;
  status: number;
  text: string;
}

/** One named check of a health report: a chain, the store, the indexer, the fee payer... */
export const healthCheck = object({ name: string, ok: boolean, detail: string });
export type HealthCheck = Infer<typeof healthCheck>;

/** One enabled network of a relay (GET /networks, and /health/detail). */
export const relayNetwork = object({ name: string, backend: string, sandbox: boolean, programId: string });
export type RelayNetwork = Infer<typeof relayNetwork>;

/**
 * GET /health/detail (operator token): every check, answered 200 when all pass and 503 otherwise.
 * The fields after `checks` are this relay's additions, optional for a reader of an older relay.
 */
export const healthDetail = object({
  status: literal("ok", "degraded"),
  checks: array(healthCheck),
  /** When the checks ran (Unix ms); the report is reused for a few seconds. */
  checkedAt: optional(nonNegInt),
  uptimeSec: optional(nonNegInt),
  version: optional(string),
  networks: optional(array(relayNetwork)),
});
export type HealthDetail = Infer<typeof healthDetail>;

/** GET /networks */
export const networksAnswer = object({ networks: array(relayNetwork) });
export type NetworksAnswer = Infer<typeof networksAnswer>;

export interface SandboxDepositAnswer {
  signature: string;
  status: "indexed" | "failed";
  leafIndex: number | null;
  /**
   * The leaf the pool computed, Poseidon(precommitment, amount, mintField)
   * (protocol v2); null when the precommitment was refused (the deposit is failed).
   */
  commitment: Uint8Array | null;
}

/** One fee setting of GET /fees: fee = max(floor, floor(depositSize · bps / 10 000)). */
export interface FeeSetting {
  bps: number;
  floor: bigint;
}

/**
 * GET /fees: the default and per-pool overrides (`pools[network][mint]`), and
 * (protocol v2) `relayers[network]`: the key that signs that
 * network's withdrawals and receives the fee, which a proof must be bound to.
 * A network is missing from `relayers` when the relay published no key for it
 * (null on the wire) or none at all (a relay older than v2).
 */
export interface FeeSchedule {
  default: FeeSetting;
  pools: Record<string, Record<string, FeeSetting>>;
  relayers: Record<string, string>;
  formula?: string;
}

const isObject = isRecord;

function field(value: unknown, what: string): Result<Uint8Array, string> {
  if (!Array.isArray(value) || value.length !== 32) return err(`${what} is not a 32-byte array`);
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) {
    const b: unknown = value[i];
    if (typeof b !== "number" || !Number.isInteger(b) || b < 0 || b > 255) return err(`${what} holds a non-byte`);
    out[i] = b;
  }
  // Every hash on the wire is a canonical field element (below the BN254 modulus); anything else is not a tree value.
  if (!isCanonicalField(out)) return err(`${what} is not below the field modulus`);
  return ok(out);
}

const isNonNegInt = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
const isString = (v: unknown): v is string => typeof v === "string";

export const decodeMerkleState: Decoder<MerkleState> = (v) => {
  if (!isObject(v) || !isString(v.address) || !isObject(v.json)) return err("expected { address, json }");
  const root = field(v.json.root, "json.root");
  if (!root.ok) return root;
  if (!isNonNegInt(v.json.nextIndex)) return err("json.nextIndex is not a non-negative integer");
  if (!isNonNegInt(v.json.depth)) return err("json.depth is not a non-negative integer");
  return ok({ address: v.address, json: { root: root.value, nextIndex: v.json.nextIndex, depth: v.json.depth } });
};

export const decodeMerkleProof: Decoder<MerkleProof> = (v) => {
  if (!isObject(v) || !isString(v.address) || !isObject(v.json)) return err("expected { address, json }");
  const { path, indices } = v.json;
  if (!Array.isArray(path) || !Array.isArray(indices)) return err("json.path and json.indices must be arrays");
  if (path.length !== indices.length) return err(`json.path has ${path.length} entries but json.indices ${indices.length}`);
  const elements: Uint8Array[] = [];
  for (let i = 0; i < path.length; i++) {
    const e = field(path[i], `json.path[${i}]`);
    if (!e.ok) return e;
    elements.push(e.value);
  }
  const bits: number[] = [];
  for (const b of indices) {
    if (b !== 0 && b !== 1) return err("json.indices must hold only 0 and 1");
    bits.push(b);
  }
  return ok({ address: v.address, json: { path: elements, indices: bits } });
};

export const decodeMerkleNode: Decoder<MerkleNode> = (v) => {
  if (!isObject(v) || !isString(v.address) || !isObject(v.json)) return err("expected { address, json }");
  const value = field(v.json.value, "json.value");
  if (!value.ok) return value;
  return ok({ address: v.address, json: { value: value.value } });
};

/** {@link leafList}, and the page must hang together: consecutive indices from `from`, below `nextIndex`, no amount on a change leaf. */
export const decodeLeafList: Decoder<LeafList> = (v) => {
  const r = leafList(v);
  if (!r.ok) return r;
  const { nextIndex, from, leaves } = r.value.json;
  for (const [i, leaf] of leaves.entries()) {
    if (leaf.index !== from + i) return err(`json.leaves[${i}].index is ${leaf.index}, not ${from + i}: the page must list consecutive leaves from json.from`);
    if (leaf.index >= nextIndex) return err(`json.leaves[${i}].index ${leaf.index} is not below json.nextIndex ${nextIndex}`);
    if (leaf.kind === "change" && leaf.amount !== null) return err(`json.leaves[${i}] is a change leaf with an amount (a change leaf's value is private)`);
  }
  return r;
};

export const decodeNullifierStatus: Decoder<NullifierStatus> = (v) => {
  if (!isObject(v)) return err("expected { address, json }");
  if (v.address === null && v.json === null) return ok({ address: null, json: null });
  if (isString(v.address) && isObject(v.json) && v.json.spent === true) return ok({ address: v.address, json: { spent: true } });
  return err("expected { address: null, json: null } or { address, json: { spent: true } }");
};

export const decodeLogin: Decoder<{ id: string }> = (v) =>
  isObject(v) && isString(v.id) && v.id.length > 0 ? ok({ id: v.id }) : err("expected { id: string }");

/** The spec calls is_logged's answer a "JSON string `true`": a JSON boolean, or the quoted text, both accepted. */
export const decodeBoolean: Decoder<boolean> = (v) => {
  if (typeof v === "boolean") return ok(v);
  if (v === "true" || v === "false") return ok(v === "true");
  return err("expected true or false");
};

export const decodeRelaySuccess: Decoder<RelaySuccess> = relaySuccess;

const isUintText = (v: unknown): v is string => isString(v) && /^[0-9]{1,40}$/.test(v);

function decodeRouteStep(v: unknown): SwapRouteStep | null {
  if (!isObject(v) || !isObject(v.swapInfo)) return null;
  const s = v.swapInfo;
  if (!isString(s.ammKey) || !isString(s.inputMint) || !isString(s.outputMint) || !isUintText(s.inAmount) || !isUintText(s.outAmount)) return null;
  const swapInfo: SwapRouteStep["swapInfo"] = {
    ammKey: s.ammKey,
    label: isString(s.label) ? s.label : "",
    inputMint: s.inputMint,
    outputMint: s.outputMint,
    inAmount: s.inAmount,
    outAmount: s.outAmount,
  };
  if (isUintText(s.feeAmount)) swapInfo.feeAmount = s.feeAmount;
  if (isString(s.feeMint)) swapInfo.feeMint = s.feeMint;
  return { swapInfo, percent: typeof v.percent === "number" ? v.percent : null };
}

export const decodeSwapQuote: Decoder<SwapQuote> = (v) => {
  if (!isObject(v)) return err("expected a quote object");
  const { inputMint, outputMint, inAmount, outAmount, priceImpactPct, routePlan } = v;
  if (!isString(inputMint) || !isString(outputMint) || !isUintText(inAmount) || !isUintText(outAmount))
    return err("quote mints must be strings and amounts decimal text");
  if (typeof priceImpactPct !== "number" || !Array.isArray(routePlan)) return err("quote needs priceImpactPct and routePlan");
  const steps: SwapRouteStep[] = [];
  for (const [i, s] of routePlan.entries()) {
    const step = decodeRouteStep(s);
    if (!step) return err(`routePlan[${i}] needs swapInfo { ammKey, inputMint, outputMint, inAmount, outAmount }`);
    steps.push(step);
  }
  const q: SwapQuote = { inputMint, outputMint, inAmount, outAmount, priceImpactPct, routePlan: steps };
  if (isUintText(v.otherAmountThreshold)) q.otherAmountThreshold = v.otherAmountThreshold;
  if (typeof v.slippageBps === "number") q.slippageBps = v.slippageBps;
  return ok(q);
};

export const decodeHealthDetail: Decoder<HealthDetail> = healthDetail;

export const decodeNetworks: Decoder<RelayNetwork[]> = (v) => {
  const r = networksAnswer(v);
  return r.ok ? ok(r.value.networks) : r;
};

export const decodeSignatureAnswer: Decoder<{ signature: string }> = (v) =>
  isObject(v) && isString(v.signature) ? ok({ signature: v.signature }) : err("expected { signature }");

/** A 32-byte field element as the wire carries it (number[]), checked like every hash on the wire. */
const fieldBytes: Decoder<number[]> = decoder((v, p) => {
  const f = field(v, p);
  return f.ok ? ok(Array.from(f.value)) : f;
});

/** POST /sandbox/deposit as the relay answers it. */
export const sandboxDepositAnswer = object({
  signature: string,
  status: literal("indexed", "failed"),
  leafIndex: nullable(nonNegInt),
  /** The leaf the pool computed (protocol v2); a relay that leaves it out is older than v2. */
  commitment: decoder<number[] | null>((v, p) =>
    v === undefined ? err(`${p} is missing (a protocol v2 relay answers the leaf the pool computed)`) : v === null ? ok(null) : decodeAt(fieldBytes, v, p),
  ),
});
export type SandboxDepositWire = Infer<typeof sandboxDepositAnswer>;

export const decodeSandboxDeposit: Decoder<SandboxDepositAnswer> = (v) => {
  const r = sandboxDepositAnswer(v);
  if (!r.ok) return r;
  const { signature, status, leafIndex, commitment } = r.value;
  if ((status === "indexed") !== (leafIndex !== null)) return err("an indexed deposit has a leafIndex and a failed one has none");
  if (status === "indexed" && commitment === null) return err("an indexed deposit has the commitment the pool inserted");
  return ok({ signature, status, leafIndex, commitment: commitment === null ? null : Uint8Array.from(commitment) });
};

export const decodeBalance: Decoder<{ amount: bigint }> = (v) =>
  isObject(v) && isString(v.amount) && /^[0-9]+$/.test(v.amount) ? ok({ amount: BigInt(v.amount) }) : err("expected { amount: decimal string }");

const basisPoints: Decoder<number> = decoder((v, p) => (isNonNegInt(v) && v <= 10_000 ? ok(v) : err(`${p} is not basis points`)));
/** Amounts travel as decimal strings in answers (JSON numbers lose precision above 2^53); a plain number is accepted too. */
const baseUnits: Decoder<string> = decoder((v, p) =>
  typeof v === "string" && /^[0-9]+$/.test(v) ? ok(v) : isNonNegInt(v) ? ok(String(v)) : err(`${p} is not a base-unit amount`),
);
/** null: the relay has no key for that network (no chain configured); it cannot withdraw there. */
const relayerKey: Decoder<string | null> = decoder((v, p) =>
  v === null || (isString(v) && parsePublicKey(v).ok) ? ok(v as string | null) : err(`${p} is not a base58 public key or null`),
);

/** One fee setting as published: fee = max(floor, floor(depositSize · bps / 10 000)). */
export const publishedFee = object({ bps: basisPoints, floor: baseUnits });
export type PublishedFee = Infer<typeof publishedFee>;

/** GET /fees as the relay answers it (pools and relayers are optional for a reader of a relay older than v2). */
export const feesAnswer = object({
  formula: optional(string),
  default: publishedFee,
  pools: optional(record(record(publishedFee))),
  relayers: optional(record(relayerKey)),
  graceSec: optional(nonNegInt),
});
export type FeesAnswer = Infer<typeof feesAnswer>;

const toSetting = (f: PublishedFee): FeeSetting => ({ bps: f.bps, floor: BigInt(f.floor) });

export const decodeFeeSchedule: Decoder<FeeSchedule> = (v) => {
  const r = feesAnswer(v);
  if (!r.ok) return r;
  const pools: Record<string, Record<string, FeeSetting>> = {};
  for (const [network, byMint] of Object.entries(r.value.pools ?? {})) {
    pools[network] = Object.fromEntries(Object.entries(byMint).map(([mint, f]) => [mint, toSetting(f)]));
  }
  const relayers: Record<string, string> = {};
  for (const [network, key] of Object.entries(r.value.relayers ?? {})) if (key !== null) relayers[network] = key;
  const out: FeeSchedule = { default: toSetting(r.value.default), pools, relayers };
  if (r.value.formula !== undefined) out.formula = r.value.formula;
  return ok(out);
};

export const decodeOkTrue: Decoder<{ ok: true }> = (v) => (isObject(v) && v.ok === true ? ok({ ok: true }) : err("expected { ok: true }"));

export const decodeCompliancePublicKey: Decoder<CompliancePublicKey> = (v) => {
  if (!isObject(v) || !isString(v.publicKey) || v.algorithm !== "ed25519" || !isString(v.message))
    return err('expected { publicKey, algorithm: "ed25519", message }');
  return ok({ publicKey: v.publicKey, algorithm: "ed25519", message: v.message, validitySec: isNonNegInt(v.validitySec) ? v.validitySec : null });
};

/** The compliance body; its parts are parsed when it has the `<expiresAtUnix>.<base58 signature>` form, kept raw otherwise. */
export function parseOfacSignature(text: string): OfacSignature {
  const raw = text.trim();
  const m = /^([0-9]{1,12})\.([1-9A-HJ-NP-Za-km-z]+)$/.exec(raw);
  return m ? { raw, expiresAt: Number(m[1]), signature: m[2]! } : { raw, expiresAt: null, signature: null };
}
