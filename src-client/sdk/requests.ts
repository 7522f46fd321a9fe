/**
 * The requests the SDK sends: each type is what a caller gives for a body declared once in
 * src-shared/api/requests.ts (the declaration the relay decodes with), with bigint amounts and
 * Uint8Array bytes; encodeBody turns it into the wire form (JSON numbers exact up to 2^53 - 1,
 * u64 as decimal text).
 */
import type { InputOf } from "../../src-shared/api/request-fields";
import type * as body from "../../src-shared/api/requests";
import { TREE_DEPTH } from "../../src-shared/pool-program/constants";

export { amountToWire, u64ToWire, type Amount } from "../../src-shared/api/request-fields";

export type LoginRequest = InputOf<typeof body.loginRequest>;
/** POST /relay: the proof, its public inputs and the terms it was made for (protocol v3: `depositSize` is the part of the note withdrawn). */
export type WithdrawalRequest = InputOf<typeof body.relayRequest>;
/** POST /relay_swap: a withdrawal of input_mint whose recipient receives at least minOut of output_mint. */
export type SwapWithdrawalRequest = InputOf<typeof body.relaySwapRequest>;
export type RevertRequest = InputOf<typeof body.revertRequest>;
export type SwapQuoteRequest = InputOf<typeof body.quoteRequest>;
export type SandboxAirdropRequest = InputOf<typeof body.sandboxAirdropRequest>;
export type SandboxDepositRequest = InputOf<typeof body.sandboxDepositRequest>;
export type SandboxSwapPoolRequest = InputOf<typeof body.sandboxSwapPoolRequest>;

/** The tree depth every request names (the spec's `depth`), exported for SDK users; defined once in src-shared. */
export { TREE_DEPTH };
