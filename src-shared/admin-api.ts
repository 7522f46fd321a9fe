import type { SubmissionAttempt } from "./submission-attempt";
/**
 * Wire shapes of the operator's admin API (`/admin/*`, `Authorization: Bearer
 * <operator token>`), shared by the server that answers and the console that
 * reads. Amounts are decimal strings (base units), times Unix milliseconds,
 * 32-byte values 64 lowercase hex characters without a prefix.
 */
import type { Network } from "./networks";

export type RelayStatus = "received" | "verified" | "submitted" | "confirmed" | "failed";
export const RELAY_STATUSES: readonly RelayStatus[] = ["received", "verified", "submitted", "confirmed", "failed"];

/** Time ranges the dashboards chart; each has a fixed bucket size. */
export const ADMIN_RANGES = {
  "24h": { spanMs: 24 * 3_600_000, bucketMs: 3_600_000 },
  "7d": { spanMs: 7 * 86_400_000, bucketMs: 6 * 3_600_000 },
  "30d": { spanMs: 30 * 86_400_000, bucketMs: 86_400_000 },
} as const;
export type AdminRange = keyof typeof ADMIN_RANGES;
export const isAdminRange = (v: unknown): v is AdminRange => typeof v === "string" && Object.hasOwn(ADMIN_RANGES, v);

export interface TimeBucket {
  /** Start of the bucket. */
  at: number;
  count: number;
}

export interface RootRecord {
  root: string;
  nextIndex: number;
  at: number;
}

/** A pause switch: a whole network (`mint` null) or one pool. */
export interface AdminPause {
  network: Network;
  mint: string | null;
  reason: string;
  at: number;
}

/** GET /admin/pools → { pools } ; GET /admin/pools/{network}/{mint} → one, with up to 100 roots. */
export interface AdminPoolSummary {
  network: Network;
  mint: string;
  /** The tree account PDA ["merkle_tree", mint]. */
  address: string;
  sandbox: boolean;
  root: string;
  nextIndex: number;
  /** The chain's own leaf count, when it answered; nextIndex below it is indexer lag. */
  chainNextIndex: number | null;
  drift: string | null;
  /** Why relays of this pool are refused, when paused (the pool's or its network's switch). */
  paused: string | null;
  recentRoots: RootRecord[];
  deposits: { range: AdminRange; bucketMs: number; buckets: TimeBucket[]; total: number };
}

export interface AdminTreeNodeRef {
  index: number;
  value: string;
  /** Leaves under it that hold a deposit. */
  filled: number;
}

/** GET /admin/pools/{network}/{mint}/nodes/{heapIndex}: heap order, 1 = root, leaf j = 2^32 + j. */
export interface AdminTreeNode extends AdminTreeNodeRef {
  network: Network;
  mint: string;
  /** 0 = leaf, 32 = root. */
  height: number;
  parent: number | null;
  /** First leaf index under it, and how many leaves it spans. */
  firstLeaf: number;
  span: number;
  /** Equal to the zero-subtree hash: nothing deposited below. */
  empty: boolean;
  children: AdminTreeNodeRef[];
  /** For a filled leaf: the deposit transaction that inserted it. */
  leaf: { leafIndex: number; signature: string; slot: number; indexedAt: number } | null;
}

export interface RelayStep {
  kind: RelayStatus;
  at: number;
  /** Time from receipt to this step. */
  sinceStartMs: number;
  /** Time from this step to the next (null for the last). */
  durationMs: number | null;
  verifyMs?: number;
  signature?: string;
  error?: string;
  detail?: string;
}

export interface AdminRelay {
  id: string;
  kind: "relay" | "swap";
  network: Network;
  mint: string;
  outputMint: string | null;
  recipient: string;
  nullifierHash: string;
  depositSize: string;
  fee: string;
  /** The terms the proof was checked against (protocol v2): who signed and received the fee, and a swap's minimum output (base units of outputMint). Null on records from before v2. */
  relayer: string | null;
  minOut: string | null;
  status: RelayStatus;
  error: string | null;
  signature: string | null;
  receivedAt: number;
  /** Receipt to the last step. */
  durationMs: number;
}

export interface AdminRelayDetail extends AdminRelay {
  steps: RelayStep[];
  /** Network fees the relayer paid for it (lamports; 0 on the sandbox). */
  costLamports: string;
  /** Each signed transaction sent for it (Solana networks; empty on the sandbox). */
  attempts: SubmissionAttempt[];
}

/** GET /admin/relays?network&mint&status&from&to&limit&before */
export interface AdminRelayPage {
  items: AdminRelay[];
  /** Pass as `before` for the next (older) page; null at the end. */
  next: string | null;
  /** Per status, for the same filters without paging. */
  counts: Partial<Record<RelayStatus, number>>;
  retentionDays: number;
}

/** One relay refused before its proof verified: kept in memory only, never stored. */
export interface AdminRejectedRelay {
  /** Unix ms it was received. */
  at: number;
  kind: "relay" | "swap";
  network: Network;
  mint: string;
  status: number;
  error: string;
  detail: string;
}

/** GET /admin/relays/rejected?limit: relays refused before their proof verified, since the relay started. */
export interface AdminRejectedRelays {
  /** Unix ms the counting started (the relay's start). */
  since: number;
  total: number;
  /** Per error name. */
  counts: Record<string, number>;
  /** How many of the newest the relay keeps; older ones are only counted. */
  kept: number;
  /** Newest first. */
  items: AdminRejectedRelay[];
}

/** GET /admin/nullifiers/search?q=<hex | [bytes]>&network&mint */
export interface AdminNullifierSearch {
  nullifierHash: string;
  poolsChecked: number;
  results: { network: Network; mint: string; spent: boolean; address: string | null; relays: AdminRelay[] }[];
}

/** GET /admin/nullifiers/spent?network&mint&limit: nullifiers spent through this relay. */
export interface AdminSpentNullifier {
  nullifierHash: string;
  network: Network;
  mint: string;
  at: number;
  relayId: string;
  signature: string | null;
}

export interface AdminCheck {
  name: string;
  ok: boolean;
  detail: string;
}

/** GET /admin/health */
/** One RPC endpoint of a solana network, as the failover sees it (URL as its origin only). */
export interface RpcEndpointStatus {
  url: string;
  healthy: boolean;
  /** The endpoint requests go to first now. */
  active: boolean;
  latencyMs: number | null;
  slot: number | null;
  /** Slots behind the most advanced endpoint at the last probe. */
  slotLag: number | null;
  requests: number;
  errors: number;
  lastError: string | null;
  lastErrorAt: number | null;
  lastOkAt: number | null;
}

export interface AdminHealth {
  status: "ok" | "degraded";
  checks: AdminCheck[];
  uptimeSec: number;
  version: string;
  /**
   * developmentVerifyingKey: a solana network started on the development verifying key (published
   * seed; networks.<n>.allowDevelopmentVerifyingKey): the console shows a red banner on every page.
   */
  networks: {
    name: Network;
    backend: string;
    sandbox: boolean;
    programId: string;
    faults: { chainDown: boolean } | null;
    rpcEndpoints: RpcEndpointStatus[] | null;
    developmentVerifyingKey: boolean;
  }[];
  store: { ok: boolean; failure: string | null; journalBytes: number; writes: number; fsyncs: number; lastSnapshotAt: number | null; snapshotMs: number | null };
  indexer: { network: Network; mint: string; nextIndex: number; chainNextIndex: number | null; lag: number | null; drift: string | null }[];
  relays: { inFlight: number; lastDay: Partial<Record<RelayStatus, number>> };
  rateLimits: { endpoint: string; hits: number; refusals: number }[];
  pauses: AdminPause[];
}

export interface AdminKeyFingerprint {
  name: string;
  purpose: string;
  /** Public half, when the key has one (never the secret). */
  publicKey: string | null;
  /** sha256 of the public key (or of the stored hash), first 16 hex. */
  fingerprint: string;
  storage: string;
}

/**
 * GET /admin/pools/archived: pools set aside at a protocol upgrade (their
 * leaves follow an older leaf rule; protocol v2 never mixes them with its own).
 */
export interface AdminArchivedPool {
  network: Network;
  mint: string;
  /** The protocol their leaves follow. */
  protocol: number;
  leaves: number;
  /** The last root, hex; null when the indexer had none. */
  root: string | null;
  archivedAt: number;
  reason: string;
}

/** GET /admin/settings */
export interface AdminSettings {
  networks: { name: Network; enabled: boolean; backend: string; sandbox: boolean; programId: string; pools: string[]; rpcUrl: string | null }[];
  fees: {
    default: { bps: number; floor: string };
    pools: { network: Network; mint: string; bps: number; floor: string }[];
    /** After a change, the replaced fee is still accepted this long (proofs bind the fee). */
    graceSec: number;
    /** The key that signs each network's withdrawals and receives the fee (proofs bind it). */
    relayers: { network: Network; address: string }[];
  };
  limits: {
    rateLimitsEnabled: boolean;
    windowSec: number;
    perEndpoint: Record<string, number>;
    bodyLimitBytes: number;
    tokenTtlSec: number;
    requireRelayAuth: boolean;
  };
  retentionDays: number;
  keys: AdminKeyFingerprint[];
  operatorToken: { source: "configured" | "generated"; fingerprint: string };
  pauses: AdminPause[];
}

/**
 * POST /admin/fees: a pool's fee, or (mint null) the default of every pool
 * without its own; `reset` goes back to the config file's. Answers the fees in force.
 */
export type AdminFeeRequest = { network: Network; mint: string | null } & ({ bps: number; floor: string } | { reset: true });

/** POST /admin/pauses { network, mint?, paused, reason? } → { pauses } */
export interface AdminPauseRequest {
  network: Network;
  mint?: string | null;
  paused: boolean;
  reason?: string;
}

/** GET /admin/money?range */
export interface AdminMoney {
  range: AdminRange;
  bucketMs: number;
  feePayers: { network: Network; address: string; sandbox: boolean; balances: { mint: string; amount: string }[]; note: string }[];
  /** Fees of confirmed relays per bucket, network and mint (pruned days come from the daily aggregates). */
  earned: { at: number; network: Network; mint: string; fees: string; relays: number }[];
  totals: { network: Network; mint: string; fees: string; volume: string; relays: number; costLamports: string }[];
  recent: { id: string; network: Network; mint: string; status: RelayStatus; receivedAt: number; depositSize: string; fee: string; costLamports: string }[];
}

/** POST /admin/sandbox/faults { network, chainDown } → { faults } (sandbox networks only) */
export interface AdminFault {
  network: Network;
  chainDown: boolean;
  /** A simulated fee-payer balance (decimal string of lamports) for the low-balance drill; null: none simulated (the sandbox pays no fees). */
  feePayerLamports: string | null;
}

/** POST /admin/sandbox/faults: a switch to change (the others stay as they are). */
export interface AdminFaultRequest {
  network: Network;
  chainDown?: boolean;
  feePayerLamports?: string | null;
}

export type RevertStatus = "requested" | "submitted" | "processed" | "failed";
export const REVERT_STATUSES: readonly RevertStatus[] = ["requested", "submitted", "processed", "failed"];

/** GET /admin/reverts?status&network&limit → { items } ; GET /admin/reverts/{id} → with steps. The support queue. */
export interface AdminRevert {
  id: string;
  network: Network;
  depositSignature: string;
  /** The wallet that asked (its auth token's). */
  wallet: string;
  mint: string | null;
  amount: string | null;
  status: RevertStatus;
  error: string | null;
  signature: string | null;
  requestedAt: number;
  durationMs: number;
  steps: { kind: RevertStatus; at: number; sinceStartMs: number; signature?: string; error?: string; detail?: string }[];
}

export interface AdminComplianceDecision {
  id: number;
  at: number;
  purpose: "ofac_signature" | "relay_recipient";
  network: Network | null;
  address: string;
  outcome: "issued" | "refused" | "error" | "clear" | "listed";
  listVersion: string | null;
  expiresAt: number | null;
  detail: string | null;
}

export interface AdminSanctionsOverride {
  address: string;
  action: "add" | "remove";
  reason: string;
  createdAt: number;
}

/** GET /admin/compliance?address&limit: the decision log and the list in force. */
export interface AdminCompliance {
  decisions: AdminComplianceDecision[];
  list: {
    kind: "file" | "url";
    source: string;
    version: string | null;
    count: number;
    baseCount: number;
    overrides: { add: number; remove: number };
    loadedAt: number | null;
    checkedAt: number | null;
    lastError: string | null;
  };
  overrides: AdminSanctionsOverride[];
  history: { address: string; change: "add" | "remove" | "clear"; reason: string; at: number }[];
}

/** POST /admin/sanctions/overrides { address, action: add | remove | clear, reason } → AdminCompliance */
export interface AdminOverrideRequest {
  address: string;
  action: "add" | "remove" | "clear";
  reason: string;
}
