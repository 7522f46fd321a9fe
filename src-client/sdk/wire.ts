import { parsePublicKey } from "../../src-shared/encoding/base58";
import { isCanonicalField } from "../../src-shared/encoding/field";
import { err, ok, type Result } from "../../src-shared/result";

/**
 * Answer types of the relay (the API summary in README.md, sandbox endpoints included) and decoders that
 * check them at run time: a relay is a remote party, so a malformed answer
 * becomes a typed `BadResponse` instead of a crash deep in the caller.
 * Byte arrays arrive as number[] on the wire and are handed out as Uint8Array.
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

/** Spec: `{address:null, json:null}` when not spent. */
export type NullifierStatus = { address: null; json: null } | { address: string; json: { spent: true } };

export interface RelaySuccess {
  status: 200;
  signature: string;
}

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

export interface HealthCheck {
  name: string;
  ok: boolean;
  detail: string;
}

/** One enabled network of a relay (GET /networks, and /health/detail). */
export interface RelayNetwork {
  name: string;
  backend: string;
  sandbox: boolean;
  programId: string;
}

export interface HealthDetail {
  status: string;
  checks: HealthCheck[];
  uptimeSec?: number;
  version?: string;
  networks?: RelayNetwork[];
}

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

export type Decoder<T> = (value: unknown) => Result<T, string>;

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

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

export const decodeRelaySuccess: Decoder<RelaySuccess> = (v) =>
  isObject(v) && v.status === 200 && isString(v.signature) ? ok({ status: 200, signature: v.signature }) : err("expected { status: 200, signature }");

const isUintText = (v: unknown): v is string => isString(v) && /^[0-9]{1,40}$/.test(v);

function decodeRouteStep(v: unknown): SwapRouteStep | null {
  if (!isObject(v) || !isObject(v.swapInfo)) return null;
  const s = v.swapInfo;
  if (!isString(s.ammKey) || !isString(s.inputMint) || !isString(s.outputMint) || !isUintText(s.inAmount) || !isUintText(s.outAmount)) return null;
  const swapInfo: SwapRouteStep["swapInfo"] = { ammKey: s.ammKey, label: isString(s.label) ? s.label : "", inputMint: s.inputMint, outputMint: s.outputMint, inAmount: s.inAmount, outAmount: s.outAmount };
  if (isUintText(s.feeAmount)) swapInfo.feeAmount = s.feeAmount;
  if (isString(s.feeMint)) swapInfo.feeMint = s.feeMint;
  return { swapInfo, percent: typeof v.percent === "number" ? v.percent : null };
}

export const decodeSwapQuote: Decoder<SwapQuote> = (v) => {
  if (!isObject(v)) return err("expected a quote object");
  const { inputMint, outputMint, inAmount, outAmount, priceImpactPct, routePlan } = v;
  if (!isString(inputMint) || !isString(outputMint) || !isUintText(inAmount) || !isUintText(outAmount)) return err("quote mints must be strings and amounts decimal text");
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

export const decodeHealthDetail: Decoder<HealthDetail> = (v) => {
  if (!isObject(v) || !isString(v.status) || !Array.isArray(v.checks)) return err("expected { status, checks }");
  const checks: HealthCheck[] = [];
  for (const c of v.checks) {
    if (!isObject(c) || !isString(c.name) || typeof c.ok !== "boolean") return err("each check needs name and ok");
    checks.push({ name: c.name, ok: c.ok, detail: isString(c.detail) ? c.detail : "" });
  }
  const out: HealthDetail = { status: v.status, checks };
  if (isNonNegInt(v.uptimeSec)) out.uptimeSec = v.uptimeSec;
  if (isString(v.version)) out.version = v.version;
  if (Array.isArray(v.networks)) {
    out.networks = v.networks.filter(isObject).map((n) => ({
      name: String(n.name),
      backend: String(n.backend),
      sandbox: n.sandbox === true,
      programId: String(n.programId),
    }));
  }
  return ok(out);
};

export const decodeNetworks: Decoder<RelayNetwork[]> = (v) => {
  if (!isObject(v) || !Array.isArray(v.networks)) return err("expected { networks }");
  const out: RelayNetwork[] = [];
  for (const n of v.networks) {
    if (!isObject(n) || !isString(n.name) || !isString(n.backend) || typeof n.sandbox !== "boolean" || !isString(n.programId)) return err("each network needs name, backend, sandbox and programId");
    out.push({ name: n.name, backend: n.backend, sandbox: n.sandbox, programId: n.programId });
  }
  return ok(out);
};

export const decodeSignatureAnswer: Decoder<{ signature: string }> = (v) =>
  isObject(v) && isString(v.signature) ? ok({ signature: v.signature }) : err("expected { signature }");

export const decodeSandboxDeposit: Decoder<SandboxDepositAnswer> = (v) => {
  if (!isObject(v) || !isString(v.signature)) return err("expected { signature, status, leafIndex, commitment }");
  if (v.status !== "indexed" && v.status !== "failed") return err("status must be indexed or failed");
  if (v.leafIndex !== null && !isNonNegInt(v.leafIndex)) return err("leafIndex must be a non-negative integer or null");
  if ((v.status === "indexed") !== (v.leafIndex !== null)) return err("an indexed deposit has a leafIndex and a failed one has none");
  // Protocol v2: the pool answers the leaf it computed. A relay that leaves it out is older than v2.
  if (!("commitment" in v)) return err("commitment is missing (a protocol v2 relay answers the leaf the pool computed)");
  let commitment: Uint8Array | null = null;
  if (v.commitment !== null) {
    const c = field(v.commitment, "commitment");
    if (!c.ok) return c;
    commitment = c.value;
  }
  if (v.status === "indexed" && commitment === null) return err("an indexed deposit has the commitment the pool inserted");
  return ok({ signature: v.signature, status: v.status, leafIndex: v.leafIndex, commitment });
};

export const decodeBalance: Decoder<{ amount: bigint }> = (v) =>
  isObject(v) && isString(v.amount) && /^[0-9]+$/.test(v.amount) ? ok({ amount: BigInt(v.amount) }) : err("expected { amount: decimal string }");

function feeSetting(v: unknown, what: string): Result<FeeSetting, string> {
  if (!isObject(v)) return err(`${what} is not an object`);
  const { bps, floor } = v;
  if (!isNonNegInt(bps) || bps > 10_000) return err(`${what}.bps is not basis points`);
  // Amounts travel as decimal strings in answers (JSON numbers lose precision above 2^53); a plain number is accepted too.
  if (typeof floor === "string" && /^[0-9]+$/.test(floor)) return ok({ bps, floor: BigInt(floor) });
  if (isNonNegInt(floor)) return ok({ bps, floor: BigInt(floor) });
  return err(`${what}.floor is not a base-unit amount`);
}

export const decodeFeeSchedule: Decoder<FeeSchedule> = (v) => {
  if (!isObject(v)) return err("expected { default, pools }");
  const def = feeSetting(v.default, "default");
  if (!def.ok) return def;
  const pools: Record<string, Record<string, FeeSetting>> = {};
  if (v.pools !== undefined) {
    if (!isObject(v.pools)) return err("pools is not an object");
    for (const [network, byMint] of Object.entries(v.pools)) {
      if (!isObject(byMint)) return err(`pools.${network} is not an object`);
      pools[network] = {};
      for (const [mint, setting] of Object.entries(byMint)) {
        const s = feeSetting(setting, `pools.${network}.${mint}`);
        if (!s.ok) return s;
        pools[network]![mint] = s.value;
      }
    }
  }
  const relayers: Record<string, string> = {};
  if (v.relayers !== undefined) {
    if (!isObject(v.relayers)) return err("relayers is not an object");
    for (const [network, key] of Object.entries(v.relayers)) {
      // null: the relay has no key for that network (no chain configured); it cannot withdraw there.
      if (key === null) continue;
      if (!isString(key) || !parsePublicKey(key).ok) return err(`relayers.${network} is not a base58 public key or null`);
      relayers[network] = key;
    }
  }
  const out: FeeSchedule = { default: def.value, pools, relayers };
  if (isString(v.formula)) out.formula = v.formula;
  return ok(out);
};

export const decodeOkTrue: Decoder<{ ok: true }> = (v) => (isObject(v) && v.ok === true ? ok({ ok: true }) : err("expected { ok: true }"));

export const decodeCompliancePublicKey: Decoder<CompliancePublicKey> = (v) => {
  if (!isObject(v) || !isString(v.publicKey) || v.algorithm !== "ed25519" || !isString(v.message)) return err("expected { publicKey, algorithm: \"ed25519\", message }");
  return ok({ publicKey: v.publicKey, algorithm: "ed25519", message: v.message, validitySec: isNonNegInt(v.validitySec) ? v.validitySec : null });
};

/** The compliance body; its parts are parsed when it has the `<expiresAtUnix>.<base58 signature>` form, kept raw otherwise. */
export function parseOfacSignature(text: string): OfacSignature {
  const raw = text.trim();
  const m = /^([0-9]{1,12})\.([1-9A-HJ-NP-Za-km-z]+)$/.exec(raw);
  return m ? { raw, expiresAt: Number(m[1]), signature: m[2]! } : { raw, expiresAt: null, signature: null };
}
