/**
 * Wire contracts of the operator's admin API (`/admin/*`, `Authorization: Bearer
 * <operator token>`): each answer declared once as a decoder (decode.ts), its type
 * derived from it. The server builds its answers as these types and the console
 * decodes what it reads with the same declarations. Amounts are decimal strings
 * (base units), times Unix milliseconds, 32-byte values 64 lowercase hex
 * characters without a prefix.
 */
import { ErrorName } from "../errors";
import { NETWORKS, type Network } from "../networks";
import { decoder } from "./decode";
import {
  absentOrNull,
  is,
  network as networkField,
  onlyWhen,
  optional as optionalKey,
  parseU64,
  publicKeyOrNull,
  requestBody,
  safeInteger,
  type Field,
  type InputOf,
} from "./request-fields";
import { err, ok, type Result } from "../result";
import { submissionAttempt } from "../submission-attempt";
import { healthCheck, relayNetwork } from "./public";
import {
  array,
  boolean,
  decimalText,
  extend,
  field,
  literal,
  nonNegInt,
  nullable,
  number,
  object,
  optional,
  partialRecord,
  record,
  string,
  type Infer,
} from "./decode";

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

const network = literal(...NETWORKS);
const relayStatus = literal(...RELAY_STATUSES);
const adminRange = literal("24h", "7d", "30d");
const relayKind = literal("relay", "swap");
const counts = partialRecord(RELAY_STATUSES, number);

export const timeBucket = object({
  /** Start of the bucket. */
  at: number,
  count: number,
});
export type TimeBucket = Infer<typeof timeBucket>;

export const rootRecord = object({ root: string, nextIndex: number, at: number });

/** A pause switch: a whole network (`mint` null) or one pool. */
export const adminPause = object({ network, mint: nullable(string), reason: string, at: number });
export type AdminPause = Infer<typeof adminPause>;

/**
 * Mints whose decimals the admin API and the console know without reading the chain.
 * A pool of another mint shows amounts in base units, and its standard amounts start
 * at {@link UNKNOWN_MINT_STANDARD_FLOOR}.
 */
export const KNOWN_MINTS: Readonly<Record<string, { symbol: string; name: string; decimals: number }>> = {
  So11111111111111111111111111111111111111112: { symbol: "SOL", name: "Wrapped SOL", decimals: 9 },
  EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v: { symbol: "USDC", name: "USD Coin", decimals: 6 },
  Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB: { symbol: "USDT", name: "Tether USD", decimals: 6 },
};
/** Base units: the smallest standard amount the console shows for a mint of unknown decimals. */
export const UNKNOWN_MINT_STANDARD_FLOOR = 1000n;

/**
 * One standard amount of a pool (protocol v3): how many notes could cover a withdrawal of
 * it, which is the anonymity set that withdrawal hides in. A change leaf's value is
 * private, so every change leaf counts; a deposit leaf counts when its public amount is at
 * least the standard amount.
 */
export const adminAnonymitySet = object({
  amount: decimalText,
  /** Deposit leaves of at least `amount`. */
  deposits: nonNegInt,
  /** `deposits` plus every change leaf of the pool. */
  notes: nonNegInt,
});
export type AdminAnonymitySet = Infer<typeof adminAnonymitySet>;

/** The pool's leaves by kind (protocol v3), and the anonymity set of each standard amount. */
export const adminPoolLeaves = object({
  deposits: nonNegInt,
  /** Leaves that withdrawals inserted (one per withdrawal, also when nothing was left). */
  changes: nonNegInt,
  /** Deposit leaves whose amount the store does not know (indexed before protocol v3): counted in no anonymity set. */
  depositsOfUnknownAmount: nonNegInt,
  /** The largest deposit, base units; null before the first deposit of known amount. */
  largestDeposit: nullable(decimalText),
  /** Decimals of the mint when known (KNOWN_MINTS), which set the floor. */
  decimals: nullable(nonNegInt),
  /** defaultStandardFloor(decimals), or UNKNOWN_MINT_STANDARD_FLOOR. */
  standardFloor: decimalText,
  /** Every standard amount from the floor to the largest deposit, ascending. */
  anonymitySets: array(adminAnonymitySet),
});
export type AdminPoolLeaves = Infer<typeof adminPoolLeaves>;

/** GET /admin/pools → { pools } ; GET /admin/pools/{network}/{mint} → one, with up to 100 roots. */
export const adminPoolSummary = object({
  network,
  mint: string,
  /** The tree account PDA ["merkle_tree", mint]. */
  address: string,
  sandbox: boolean,
  root: string,
  nextIndex: number,
  /** The chain's own leaf count, when it answered; nextIndex below it is indexer lag. */
  chainNextIndex: nullable(number),
  drift: nullable(string),
  /** Why relays of this pool are refused, when paused (the pool's or its network's switch). */
  paused: nullable(string),
  recentRoots: array(rootRecord),
  deposits: object({ range: adminRange, bucketMs: number, buckets: array(timeBucket), total: number }),
  leaves: adminPoolLeaves,
});
export type AdminPoolSummary = Infer<typeof adminPoolSummary>;
export const adminPools = object({ pools: array(adminPoolSummary) });

export const adminTreeNodeRef = object({
  index: number,
  value: string,
  /** Leaves under it that are filled (deposit and change leaves). */
  filled: number,
});
export type AdminTreeNodeRef = Infer<typeof adminTreeNodeRef>;

/** GET /admin/pools/{network}/{mint}/nodes/{heapIndex}: heap order, 1 = root, leaf j = 2^32 + j. */
export const adminTreeNode = extend(adminTreeNodeRef, {
  network,
  mint: string,
  /** 0 = leaf, 32 = root. */
  height: number,
  parent: nullable(number),
  /** First leaf index under it, and how many leaves it spans. */
  firstLeaf: number,
  span: number,
  /** Equal to the zero-subtree hash: nothing deposited below. */
  empty: boolean,
  children: array(adminTreeNodeRef),
  /**
   * For a filled leaf: the transaction that inserted it (a deposit, or for a change leaf the
   * withdrawal), and the deposit's public amount (null for a change leaf, whose value is private).
   */
  leaf: nullable(
    object({ leafIndex: number, signature: string, slot: number, indexedAt: number, kind: literal("deposit", "change"), amount: nullable(decimalText) }),
  ),
});
export type AdminTreeNode = Infer<typeof adminTreeNode>;

export const relayStep = object({
  kind: relayStatus,
  at: number,
  /** Time from receipt to this step. */
  sinceStartMs: number,
  /** Time from this step to the next (null for the last). */
  durationMs: nullable(number),
  verifyMs: optional(number),
  signature: optional(string),
  error: optional(string),
  detail: optional(string),
});
export type RelayStep = Infer<typeof relayStep>;

export const adminRelay = object({
  id: string,
  kind: relayKind,
  network,
  mint: string,
  outputMint: nullable(string),
  recipient: string,
  nullifierHash: string,
  /** The part of the note withdrawn (protocol v3: the note's value is private). */
  depositSize: string,
  fee: string,
  /** The change leaf the withdrawal inserts (protocol v3), hex; null on records from before v3. */
  changeCommitment: nullable(string),
  /** Where the change leaf went in the pool's tree; null until the withdrawal landed (and on records from before v3). */
  changeLeafIndex: nullable(nonNegInt),
  /** The terms the proof was checked against (protocol v2): who signed and received the fee, and a swap's minimum output (base units of outputMint). Null on records from before v2. */
  relayer: nullable(string),
  minOut: nullable(string),
  status: relayStatus,
  error: nullable(string),
  signature: nullable(string),
  receivedAt: number,
  /** Receipt to the last step. */
  durationMs: number,
});
export type AdminRelay = Infer<typeof adminRelay>;

export const adminRelayDetail = extend(adminRelay, {
  steps: array(relayStep),
  /** Network fees the relayer paid for it (lamports; 0 on the sandbox). */
  costLamports: string,
  /** Each signed transaction sent for it (Solana networks; empty on the sandbox). */
  attempts: array(submissionAttempt),
});
export type AdminRelayDetail = Infer<typeof adminRelayDetail>;

/** GET /admin/relays?network&mint&status&from&to&limit&before */
export const adminRelayPage = object({
  items: array(adminRelay),
  /** Pass as `before` for the next (older) page; null at the end. */
  next: nullable(string),
  /** Per status, for the same filters without paging. */
  counts,
  retentionDays: number,
});
export type AdminRelayPage = Infer<typeof adminRelayPage>;

/** One relay refused before its proof verified: kept in memory only, never stored. */
export const adminRejectedRelay = object({
  /** Unix ms it was received. */
  at: number,
  kind: relayKind,
  network,
  mint: string,
  status: number,
  error: string,
  detail: string,
});
export type AdminRejectedRelay = Infer<typeof adminRejectedRelay>;

/** GET /admin/relays/rejected?limit: relays refused before their proof verified, since the relay started. */
export const adminRejectedRelays = object({
  /** Unix ms the counting started (the relay's start). */
  since: number,
  total: number,
  /** Per error name. */
  counts: record(number),
  /** How many of the newest the relay keeps; older ones are only counted. */
  kept: number,
  /** Newest first. */
  items: array(adminRejectedRelay),
});
export type AdminRejectedRelays = Infer<typeof adminRejectedRelays>;

/** GET /admin/nullifiers/search?q=<hex | [bytes]>&network&mint */
export const adminNullifierSearch = object({
  nullifierHash: string,
  poolsChecked: number,
  results: array(object({ network, mint: string, spent: boolean, address: nullable(string), relays: array(adminRelay) })),
});
export type AdminNullifierSearch = Infer<typeof adminNullifierSearch>;

/** GET /admin/nullifiers/spent?network&mint&limit: nullifiers spent through this relay. */
export const adminSpentNullifier = object({ nullifierHash: string, network, mint: string, at: number, relayId: string, signature: nullable(string) });
export type AdminSpentNullifier = Infer<typeof adminSpentNullifier>;
export const adminSpentNullifiers = object({ items: array(adminSpentNullifier) });

/** One RPC endpoint of a solana network, as the failover sees it (URL as its origin only). */
export const rpcEndpointStatus = object({
  url: string,
  healthy: boolean,
  /** The endpoint requests go to first now. */
  active: boolean,
  latencyMs: nullable(number),
  slot: nullable(number),
  /** Slots behind the most advanced endpoint at the last probe. */
  slotLag: nullable(number),
  requests: number,
  errors: number,
  lastError: nullable(string),
  lastErrorAt: nullable(number),
  lastOkAt: nullable(number),
});
export type RpcEndpointStatus = Infer<typeof rpcEndpointStatus>;

/**
 * A solana network's pool program as the relay last checked it (docs/security.md, "The deployed
 * program"): the deployed ELF's hash against the one the verifying key belongs to, the key's
 * fingerprint and, for a ceremony key, its transcript's summary (contributions and the beacon).
 */
export const adminNetworkProgram = object({
  /** "development": the committed development build of the published-seed key; "ceremony": a key from ceremony.json. */
  key: literal("development", "ceremony"),
  /** verifyingKeyFingerprint of the relay's vkey. */
  vkeyFingerprint: string,
  /** programElfHash of the deployed ELF; null before it was read. */
  programHash: nullable(string),
  /** The hash the key's program has (the committed build's, or the transcript's final.programSha256). */
  expectedHash: string,
  programId: string,
  /** ProgramData's last-deployed slot (null: not an upgradeable program). */
  deployedSlot: nullable(number),
  upgradeAuthority: nullable(string),
  ceremony: nullable(
    object({
      contributions: number,
      contributors: array(string),
      phase1: string,
      beaconSlot: number,
      beaconBlockSlot: nullable(number),
      beaconBlockhash: nullable(string),
    }),
  ),
  /** Why relays are stopped (503 RelayPaused), null while the program is the expected one. */
  refusal: nullable(string),
  checkedAt: number,
  /** The last watch read that failed, until one succeeds. */
  readError: nullable(string),
});
export type AdminNetworkProgram = Infer<typeof adminNetworkProgram>;

/** A relay instance sharing the store, as its last heartbeat described it (times: the store's clock). */
export const adminInstance = object({
  id: string,
  host: string,
  pid: nonNegInt,
  version: string,
  startedAt: number,
  heartbeatAt: number,
  /** The instance that answered this request. */
  self: boolean,
  /** Networks whose chain it follows (it holds their follower lease, not run out). */
  follows: array(network),
});
export type AdminInstance = Infer<typeof adminInstance>;

/** Who follows a network's chain and writes its trees: the lease's holder (an instance id), epoch and end. */
export const adminFollowerLease = object({ network, holder: string, epoch: nonNegInt, leaseUntil: number });
export type AdminFollowerLease = Infer<typeof adminFollowerLease>;

/**
 * The instances sharing this relay's store (docs/scale-out.md): on sql.js the one process that
 * owns the data dir; on PostgreSQL every instance whose heartbeat is recent, and each network's lease.
 */
export const adminCluster = object({
  engine: literal("sqljs", "postgres"),
  /** This instance's id. */
  self: string,
  instances: array(adminInstance),
  leases: array(adminFollowerLease),
});
export type AdminCluster = Infer<typeof adminCluster>;

/** GET /admin/health */
export const adminHealth = object({
  status: literal("ok", "degraded"),
  checks: array(healthCheck),
  uptimeSec: number,
  version: string,
  /**
   * developmentVerifyingKey: a solana network started on the development verifying key (published
   * seed; networks.<n>.allowDevelopmentVerifyingKey): the console shows a red banner on every page.
   */
  networks: array(
    extend(relayNetwork, {
      name: network,
      faults: nullable(object({ chainDown: boolean })),
      rpcEndpoints: nullable(array(rpcEndpointStatus)),
      developmentVerifyingKey: boolean,
      /** A solana network's deployed program check; absent on the sandbox. */
      program: optional(adminNetworkProgram),
    }),
  ),
  store: object({
    ok: boolean,
    failure: nullable(string),
    journalBytes: number,
    writes: number,
    fsyncs: number,
    lastSnapshotAt: nullable(number),
    snapshotMs: nullable(number),
  }),
  indexer: array(object({ network, mint: string, nextIndex: number, chainNextIndex: nullable(number), lag: nullable(number), drift: nullable(string) })),
  relays: object({ inFlight: number, lastDay: counts }),
  rateLimits: array(object({ endpoint: string, hits: number, refusals: number })),
  pauses: array(adminPause),
  cluster: adminCluster,
});
export type AdminHealth = Infer<typeof adminHealth>;

export const adminKeyFingerprint = object({
  name: string,
  purpose: string,
  /** Public half, when the key has one (never the secret). */
  publicKey: nullable(string),
  /** sha256 of the public key (or of the stored hash), first 16 hex. */
  fingerprint: string,
  storage: string,
});
export type AdminKeyFingerprint = Infer<typeof adminKeyFingerprint>;

/**
 * GET /admin/pools/archived: pools set aside at a protocol upgrade (their
 * leaves follow an older leaf rule; protocol v2 never mixes them with its own).
 */
export const adminArchivedPool = object({
  network,
  mint: string,
  /** The protocol their leaves follow. */
  protocol: number,
  leaves: number,
  /** The last root, hex; null when the indexer had none. */
  root: nullable(string),
  archivedAt: number,
  reason: string,
});
export type AdminArchivedPool = Infer<typeof adminArchivedPool>;
export const adminArchivedPools = object({ archived: array(adminArchivedPool) });

const feeSetting = object({ bps: number, floor: string });

/** The fees in force: GET /admin/settings's `fees`, and POST /admin/fees's answer. */
export const adminFees = object({
  default: feeSetting,
  pools: array(object({ network, mint: string, bps: number, floor: string })),
  /** After a change, the replaced fee is still accepted this long (proofs bind the fee). */
  graceSec: number,
  /** The key that signs each network's withdrawals and receives the fee (proofs bind it). */
  relayers: array(object({ network, address: string })),
});

/** GET /admin/settings */
export const adminSettings = object({
  networks: array(
    object({ name: network, enabled: boolean, backend: string, sandbox: boolean, programId: string, pools: array(string), rpcUrl: nullable(string) }),
  ),
  fees: adminFees,
  limits: object({
    rateLimitsEnabled: boolean,
    windowSec: number,
    perEndpoint: record(number),
    bodyLimitBytes: number,
    tokenTtlSec: number,
    requireRelayAuth: boolean,
  }),
  retentionDays: number,
  keys: array(adminKeyFingerprint),
  operatorToken: object({ source: literal("configured", "generated"), fingerprint: string }),
  pauses: array(adminPause),
});
export type AdminSettings = Infer<typeof adminSettings>;

/**
 * POST /admin/fees: a pool's fee, or (mint null) the default of every pool
 * without its own; `reset` goes back to the config file's. Answers the fees in force.
 */
export type AdminFeeRequest = { network: Network; mint: string | null } & ({ bps: number; floor: string } | { reset: true });

/** `reset` asks for the config file's fee only when it is `true`; any other value is a fee to set. */
const resetFlag: Field<true, boolean, true, "optional"> = (() => {
  const check = (v: unknown): Result<boolean, string> => ok(v === true);
  return Object.assign(decoder(check), { at: check, encode: (r: true) => r, presence: "optional" as const });
})();
/** A fee's floor in base units: left out or null is 0. */
const floorField: Field<string, bigint, string> = (() => {
  const check = (v: unknown, p: string): Result<bigint, string> => {
    const r = parseU64(v ?? 0, false);
    return r.ok ? r : err(`${p}: ${r.error}`);
  };
  return Object.assign(decoder(check), { at: check, encode: (s: string) => s, presence: "required" as const });
})();
const notReset = (d: Readonly<Record<string, unknown>>): boolean => d.reset !== true;

/** POST /admin/fees: bps and floor are read only without `reset: true`. */
export const adminFeeRequest = requestBody(
  {
    network: networkField((p) => `${p} must be mainnet or devnet`),
    mint: publicKeyOrNull((p) => `${p} must be a base58 public key, or null for the default`),
    reset: resetFlag,
    bps: onlyWhen(
      safeInteger(0, 10_000, (p) => `${p}: an integer from 0 to 10000`),
      notReset,
    ),
    floor: onlyWhen(floorField, notReset),
  },
  "body must be { network, mint?, bps, floor } or { network, mint?, reset: true }",
  { errors: { network: ErrorName.InvalidNetwork, mint: ErrorName.InvalidMint } },
);
/** The console's fee request is one the declaration takes: the compiler checks the union against it. */
export const feeRequestBody = (req: AdminFeeRequest): InputOf<typeof adminFeeRequest> => req;

const isText = (v: unknown): v is string => typeof v === "string";

/** POST /admin/pauses { network, mint?, paused, reason? } → { pauses } */
export const adminPauseRequest = requestBody(
  {
    network: networkField((p) => `${p} must be mainnet or devnet`),
    mint: publicKeyOrNull((p) => `${p} must be a base58 public key, or null for the whole network`),
    paused: is(
      (v): v is boolean => typeof v === "boolean",
      (p) => `${p} must be true or false`,
    ),
    reason: optionalKey(is(isText, (p) => `${p} must be a string`)),
  },
  "body must be { network, mint?, paused, reason? }",
  { errors: { network: ErrorName.InvalidNetwork, mint: ErrorName.InvalidMint } },
);
export type AdminPauseRequest = InputOf<typeof adminPauseRequest>;
export const adminPauses = object({ pauses: array(adminPause) });

/** GET /admin/money?range */
export const adminMoney = object({
  range: adminRange,
  bucketMs: number,
  feePayers: array(object({ network, address: string, sandbox: boolean, balances: array(object({ mint: string, amount: string })), note: string })),
  /** Fees of confirmed relays per bucket, network and mint (pruned days come from the daily aggregates). */
  earned: array(object({ at: number, network, mint: string, fees: string, relays: number })),
  totals: array(object({ network, mint: string, fees: string, volume: string, relays: number, costLamports: string })),
  recent: array(object({ id: string, network, mint: string, status: relayStatus, receivedAt: number, depositSize: string, fee: string, costLamports: string })),
  /**
   * Failed deposits paid back by reverts, per network and mint, from the relay's revert records:
   * money that entered the vault (and the program's totalDeposited) but never the tree, and left again.
   */
  reverted: array(object({ network, mint: string, reverts: nonNegInt, amount: decimalText })),
});
export type AdminMoney = Infer<typeof adminMoney>;

/** POST /admin/sandbox/faults { network, chainDown } → { faults } (sandbox networks only) */
export const adminFault = object({
  network,
  chainDown: boolean,
  /** A simulated fee-payer balance (decimal string of lamports) for the low-balance drill; null: none simulated (the sandbox pays no fees). */
  feePayerLamports: nullable(string),
});
export type AdminFault = Infer<typeof adminFault>;
export const adminFaults = object({ faults: array(adminFault) });

/** POST /admin/sandbox/faults: a switch to change (the others stay as they are); the route checks the network is a sandbox and that one switch is sent. */
export const adminFaultRequest = requestBody(
  {
    network: networkField((p) => `${p} must be mainnet or devnet`),
    chainDown: optionalKey(
      is(
        (v): v is boolean => typeof v === "boolean",
        (p) => `${p} must be true or false`,
      ),
    ),
    feePayerLamports: absentOrNull(
      is(
        (v): v is string => typeof v === "string" && /^[0-9]{1,20}$/.test(v),
        (p) => `${p} must be a decimal string of lamports, or null to end the drill`,
      ),
    ),
  },
  "body must be { network, chainDown?, feePayerLamports? }",
  { errors: { network: ErrorName.InvalidNetwork } },
);
export type AdminFaultRequest = InputOf<typeof adminFaultRequest>;
/** The faults body's own rule, checked once feePayerLamports is read: at least one switch is sent. */
export const oneFaultSwitch = (d: { chainDown?: boolean | null; feePayerLamports?: string | null }): string | null =>
  d.chainDown === null && d.feePayerLamports === undefined ? "send chainDown (true or false) or feePayerLamports (a decimal string, or null)" : null;

export type RevertStatus = "requested" | "submitted" | "processed" | "failed";
export const REVERT_STATUSES: readonly RevertStatus[] = ["requested", "submitted", "processed", "failed"];
const revertStatus = literal(...REVERT_STATUSES);

/** GET /admin/reverts?status&network&limit → { items } ; GET /admin/reverts/{id} → with steps. The support queue. */
export const adminRevert = object({
  id: string,
  network,
  depositSignature: string,
  /** The wallet that asked (its auth token's). */
  wallet: string,
  mint: nullable(string),
  amount: nullable(string),
  status: revertStatus,
  error: nullable(string),
  signature: nullable(string),
  requestedAt: number,
  durationMs: number,
  steps: array(
    object({ kind: revertStatus, at: number, sinceStartMs: number, signature: optional(string), error: optional(string), detail: optional(string) }),
  ),
});
export type AdminRevert = Infer<typeof adminRevert>;
export const adminReverts = object({ items: array(adminRevert) });

export const adminComplianceDecision = object({
  id: number,
  at: number,
  purpose: literal("ofac_signature", "relay_recipient"),
  network: nullable(network),
  address: string,
  outcome: literal("issued", "refused", "error", "clear", "listed"),
  listVersion: nullable(string),
  expiresAt: nullable(number),
  detail: nullable(string),
});

export const adminSanctionsOverride = object({ address: string, action: literal("add", "remove"), reason: string, createdAt: number });

/** GET /admin/compliance?address&limit: the decision log and the list in force; POST /admin/sanctions/overrides answers it too. */
export const adminCompliance = object({
  decisions: array(adminComplianceDecision),
  /**
   * Compliance signature decisions since the relay started. Without the audit log
   * (config compliance.auditLog) issued signatures and list errors are only counted here;
   * refusals are in `decisions` either way.
   */
  signatures: object({ auditLog: boolean, since: number, issued: nonNegInt, refused: nonNegInt, error: nonNegInt }),
  list: object({
    kind: literal("file", "url"),
    source: string,
    version: nullable(string),
    count: number,
    baseCount: number,
    overrides: object({ add: number, remove: number }),
    loadedAt: nullable(number),
    checkedAt: nullable(number),
    lastError: nullable(string),
  }),
  overrides: array(adminSanctionsOverride),
  history: array(object({ address: string, change: literal("add", "remove", "clear"), reason: string, at: number })),
});
export type AdminCompliance = Infer<typeof adminCompliance>;

const OVERRIDE_ACTIONS: readonly unknown[] = ["add", "remove", "clear"];

/** POST /admin/sanctions/overrides { address, action: add | remove | clear, reason } → AdminCompliance (the list checks the address). */
export const adminOverrideRequest = requestBody(
  {
    address: is(isText, (p) => `${p} must be a base58 Solana address`),
    action: is(
      (v): v is "add" | "remove" | "clear" => OVERRIDE_ACTIONS.includes(v),
      (p) => `${p} must be add, remove or clear`,
    ),
    reason: is(isText, (p) => `${p} must be a string`),
  },
  "body must be { address, action, reason }",
);
export type AdminOverrideRequest = InputOf<typeof adminOverrideRequest>;

/** GET /admin/session: the console's sign-in check (200 only with a valid operator token). */
export const adminSession = object({ ok: literal(true), tokenSource: string });

/** GET /admin/relays/{id}/log: the relay's own log lines about one relay, kept in memory since the relay started (`kept` false: no log kept). */
export const adminRelayLog = object({
  id: string,
  lines: array(object({ time: number, level: literal("info", "warn", "error"), msg: string })),
  kept: boolean,
});

/** The list of one key of an object answer (`{ pools: [...] }` → the pools). */
export const adminAnswers = {
  pools: field(adminPools, "pools"),
  archivedPools: field(adminArchivedPools, "archived"),
  spentNullifiers: field(adminSpentNullifiers, "items"),
  pauses: field(adminPauses, "pauses"),
  faults: field(adminFaults, "faults"),
  reverts: field(adminReverts, "items"),
};
