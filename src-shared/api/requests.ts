import { ErrorName } from "../errors";
import { TREE_DEPTH } from "../pool-program/constants";
import { PROOF_BYTES } from "../zk/proof-codec";
import {
  absent,
  amountToWire,
  byteArray,
  constant,
  fieldBytes,
  jsonAmount,
  labels,
  network,
  nonZeroFieldBytes,
  optional,
  refine,
  publicKey,
  requestBody,
  required,
  safeInteger,
  sentAs,
  text,
  u64,
  withDefault,
  base58,
  type WireOf,
} from "./request-fields";

/**
 * The request bodies of the relay's API, each declared once: the server decodes
 * with these (in the order of their keys, which is the order of its checks) and
 * the SDK's request types and bodies derive from them. Rules that read two
 * fields (the fee against depositSize, the swap's two mints) stay with the
 * server's parsers (src-server/core/relay/request.ts).
 */

/** The protocol v3 change leaf: required, a field element, never zero. */
const changeCommitment = required(
  nonZeroFieldBytes("must not be zero (every withdrawal inserts a change leaf, also when nothing is left)"),
  "is required (protocol v3): the change leaf the proof inserts, 32 bytes as an array of integers 0..255",
);

/** A withdrawal's fields up to its mint (lengths before decoding: base58 is quadratic in its length). */
const withdrawalHead = {
  nullifierHash: fieldBytes(),
  proof: byteArray(PROOF_BYTES),
  root: fieldBytes(),
  recipient: publicKey(),
  depth: constant(TREE_DEPTH, (p) => `${p}: must be ${TREE_DEPTH}`),
  /** The part of the note withdrawn, 1 .. 2^64 - 1 (protocol v3): a JSON number as the spec has it, or decimal text above 2^53 - 1. */
  depositSize: u64({ positive: true, send: "number", explain: (p, e) => `${p}: ${e} (the part of the note withdrawn, 1 .. 2^64 - 1 base units)` }),
};

/** A withdrawal's fields after its mint; protocol v3's field comes after v2's, as each protocol's fields follow the spec's. */
const withdrawalTail = {
  network: withDefault(network(), "mainnet"),
  /**
   * Protocol v2: the fee the proof was made for, in base units of the withdrawn mint (bound by
   * extDataHash). Left out, the relay charges its published fee, so a proof bound to any other fee is then refused (InvalidProof).
   */
  fee: optional(u64({ positive: false, send: "number" })),
  /** The relayer key the proof was made for (GET /fees `relayers[network]`); another key is refused. */
  relayer: optional(publicKey()),
  /**
   * Protocol v3: the change leaf the withdrawal inserts (32 bytes, the proof's seventh public
   * signal), non-zero and below the field modulus; `depositSize` is the part of the note withdrawn.
   */
  changeCommitment,
};

/** POST /relay. */
export const relayRequest = requestBody({ ...withdrawalHead, mint: publicKey(), ...withdrawalTail }, "body: must be a JSON object");

/** POST /relay_swap: a withdrawal whose recipient receives output_mint, swapped in the same transaction. */
export const relaySwapRequest = requestBody(
  {
    ...withdrawalHead,
    input_mint: publicKey(),
    ...withdrawalTail,
    output_mint: publicKey(),
    /** The least the recipient must receive of output_mint, in its base units; bound by the proof, sent as decimal text. */
    minOut: required(
      u64({ positive: true, send: { text: "minOut" } }),
      "is required: the least the recipient must receive of output_mint, as bound by the proof",
    ),
  },
  "body: must be a JSON object",
);

/**
 * POST /revert/{network}/{id}/{txn_sig}. A signature string that is not 64 base58 bytes
 * cannot verify: that is InvalidSignature, for the signature check, not a malformed request.
 */
export const revertRequest = requestBody(
  {
    wallet: publicKey(),
    signature: text("must be a base58 string"),
    // `Revert deposit: <txn_sig>` is far shorter than 256 characters.
    message: refine(text("must be the signed text `Revert deposit: <txn_sig>`"), (m) => m.length <= 256, "is longer than any revert message"),
  },
  "body: must be a JSON object { wallet, signature, message }",
);

/** POST /login. A signature that is not 64 base58 bytes is the spec's `Invalid signature`, not InvalidRequest. */
export const loginRequest = requestBody(
  {
    wallet: publicKey((p, e) => `${p}: ${e}`),
    message: safeInteger(0, Number.MAX_SAFE_INTEGER, () => "message must be the signed Unix timestamp in seconds, as a number"),
    signature: base58(64),
  },
  "body must be a JSON object",
  { errors: { signature: ErrorName.InvalidLoginSignature } },
);

/** POST /get_nullifier/{mint}/{depth}/{network}. */
export const nullifierRequest = requestBody(
  { nullifierHash: fieldBytes() },
  "body must be a JSON object { nullifierHash: number[32] } sent as application/json",
);

/** get_leaves' page size when the body gives none, and the most one answer lists (about 50 bytes a leaf). */
export const LEAVES_PAGE_MAX = 10_000;

/** POST /get_leaves/{mint}/{depth}/{network}: an optional page; no body at all (the spec's other reads send none) reads as `{}`. */
export const leavesRequest = requestBody(
  {
    from: optional(safeInteger(0, Number.MAX_SAFE_INTEGER, (p) => `${p} must be a non-negative integer (the first leaf index)`)),
    limit: optional(safeInteger(0, LEAVES_PAGE_MAX, (p) => `${p} must be an integer from 0 to ${LEAVES_PAGE_MAX}`)),
  },
  "body must be a JSON object { from?: number, limit?: number } or empty",
  { absent: "empty" },
);

const mintAddress = publicKey((p, e) => `${p}: ${e} (a base58 mint address)`);

/** The most venue labels a quote may name, and the longest label. */
export const MAX_DEXES = 64;
export const MAX_DEX_LABEL = 64;

/** POST /jupiter, the swap-quote helper (outputMint must differ from inputMint: the server's rule). */
export const quoteRequest = requestBody(
  {
    inputMint: mintAddress,
    outputMint: mintAddress,
    amount: sentAs(
      safeInteger(1, Number.MAX_SAFE_INTEGER, (p) => `${p}: must be a positive integer number of base units, at most 2^53 - 1`),
      amountToWire,
    ),
    /** Left out: the relay applies the pair's slippage (10 bps for two stablecoins, 50 standard, ...). */
    slippageBps: optional(safeInteger(0, 10_000, (p) => `${p}: must be an integer from 0 to 10000 (basis points)`)),
    /** Empty or left out: every venue. */
    dexes: optional(labels(MAX_DEXES, MAX_DEX_LABEL)),
    network: withDefault(network(), "mainnet"),
  },
  "body: must be a JSON object",
);

// ---- the sandbox's bodies (src-server/http/routes/sandbox.ts) ----

/** The sandbox checks its network first (InvalidNetwork), then that the network is a sandbox (the route's rule). */
const sandboxNetwork = network((p) => `${p} must be mainnet or devnet`);
const notAKey = (p: string): string => `${p} must be a base58 public key`;

/** POST /sandbox/airdrop. */
export const sandboxAirdropRequest = requestBody(
  {
    network: sandboxNetwork,
    wallet: publicKey(notAKey),
    mint: publicKey(notAKey),
    amount: jsonAmount(),
  },
  "body must be a JSON object",
  { errors: { network: ErrorName.InvalidNetwork, mint: ErrorName.InvalidMint } },
);

/** POST /sandbox/deposit. */
export const sandboxDepositRequest = requestBody(
  {
    network: sandboxNetwork,
    mint: publicKey((p, e) => `${p}: ${e}`),
    amount: jsonAmount(),
    // Protocol v2: the pool computes the leaf; a v1 body naming its own commitment is refused outright.
    commitment: absent(
      "not accepted (protocol v2): send precommitment = Poseidon(nullifier, secret); the pool computes the commitment from the amount it receives",
    ),
    /** Poseidon(nullifier, secret): the pool computes the leaf from it (protocol v2). Any 32 bytes: one the program cannot use makes the deposit `failed`. */
    precommitment: byteArray(32, (p, e) => `${p}: ${e} (32 bytes, Poseidon(nullifier, secret))`),
    wallet: publicKey((p, e) => `${p}: ${e}`),
    signature: base58(64),
  },
  "body must be a JSON object",
  { errors: { network: ErrorName.InvalidNetwork, mint: ErrorName.InvalidMint, signature: ErrorName.InvalidSignature } },
);

const poolMint = publicKey((p, e) => `${p}: ${e} (a base58 mint address)`);

/** POST /sandbox/swap_pool (mintB must differ from mintA: the route's rule). */
export const sandboxSwapPoolRequest = requestBody(
  { network: sandboxNetwork, mintA: poolMint, mintB: poolMint, reserveA: jsonAmount(), reserveB: jsonAmount() },
  "body must be a JSON object",
  { errors: { network: ErrorName.InvalidNetwork, mintA: ErrorName.InvalidMint, mintB: ErrorName.InvalidMint } },
);

/** The bodies as they go on the wire. */
export type RelayRequestWire = WireOf<typeof relayRequest>;
export type RelaySwapRequestWire = WireOf<typeof relaySwapRequest>;
