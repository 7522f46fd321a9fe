/**
 * Error names on the wire: the API's, plus the names for what the API leaves
 * open (README.md: API summary). The HTTP layer is the only place that maps them to statuses.
 */
export const ErrorName = {
  // login (spec)
  InvalidLoginSignature: "Invalid signature",
  MessageTooOld: "Message too old",
  ServerError: "Server error",
  // relay (spec)
  NullifierAlreadySpent: "NullifierAlreadySpent",
  InvalidProof: "InvalidProof",
  InvalidRoot: "InvalidRoot",
  OFACCheckFailed: "OFACCheckFailed",
  RelayFailed: "RelayFailed",
  SwapFailed: "SwapFailed",
  SlippageExceeded: "SlippageExceeded",
  InsufficientLiquidity: "InsufficientLiquidity",
  // revert (spec)
  DepositNotFound: "DepositNotFound",
  AlreadyIndexed: "AlreadyIndexed",
  NullifierSpent: "NullifierSpent",
  InvalidSignature: "InvalidSignature",
  NotDepositor: "NotDepositor",
  // compliance (spec)
  Unauthorized: "Unauthorized",
  OfacRefused: "OFAC check failed",
  ComplianceError: "Compliance check error",
  // Names for cases the API leaves open (README.md: API summary)
  RateLimited: "RateLimited",
  PoolNotFound: "PoolNotFound",
  InvalidMint: "InvalidMint",
  InvalidDepth: "InvalidDepth",
  InvalidNetwork: "InvalidNetwork",
  IndexOutOfRange: "IndexOutOfRange",
  InvalidRequest: "InvalidRequest",
  // ours
  PayloadTooLarge: "PayloadTooLarge",
  NotFound: "NotFound",
  InsufficientFunds: "InsufficientFunds",
  NetworkUnavailable: "NetworkUnavailable",
  IndexerDrift: "IndexerDrift",
  /** The operator paused relays of this network or pool (503, with the reason). */
  RelayPaused: "RelayPaused",
  /** Revert of a deposit that may still be indexed (docs/decisions.md). */
  DepositPending: "DepositPending",
  /** A relay whose fee is below the one GET /fees publishes (protocol v2: the proof binds the fee). */
  FeeTooLow: "FeeTooLow",
  /** Revert whose transaction could not be submitted (the revert twin of RelayFailed). */
  RevertFailed: "RevertFailed",
  /** A request body not declared `Content-Type: application/json` (415, docs/security.md). */
  UnsupportedMediaType: "UnsupportedMediaType",
  /** A Host header that is not a loopback or configured public name on a loopback-bound relay (421, docs/security.md). */
  MisdirectedRequest: "MisdirectedRequest",
  /**
   * A request a page on another origin made the browser send: an `Origin` that is not the
   * relay's own or one of http.allowedOrigins, or a foreign Sec-Fetch-Site (403, docs/security.md).
   */
  CrossOriginRequest: "CrossOriginRequest",
  /**
   * The proof verifier's queue is full (503, Retry-After): the relay is busy with other
   * clients' proofs; try again shortly (docs/security.md, "Event loop and verifier"). Also
   * every route's answer while the relay's database cannot be reached (Retry-After: 5).
   */
  ServerBusy: "ServerBusy",
} as const;

export type ErrorNameValue = (typeof ErrorName)[keyof typeof ErrorName];
