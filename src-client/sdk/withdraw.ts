import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { createPoseidonHasher } from "../../src-shared/crypto/poseidon-wasm";
import { U64_MAX } from "../../src-shared/crypto/protocol";
import { err, ok, type Result } from "../../src-shared/result";
import { ClientError, type ApiFailure, type ApiResult } from "./api-result";
import { relayFee } from "./fees";
import type { RelayClient } from "./http";
import type { WithdrawalRequest } from "./requests";
import type { WalletSigner } from "./keypair";
import { login } from "./login";
import { withLeafIndex, type DepositNote } from "./note";
import { proveWithdrawal, type ProveError, type ProveOptions, type ProveWithdrawalOptions, type WithdrawalProof } from "./prove";
import { noteSource, type NoteLookup, type NoteSource } from "./lookup";
import type { RandomSource } from "./note";
import type { NoteProofError, VerifiedNoteProof } from "./tree";
import type { NullifierStatus, RelaySuccess, SwapQuote } from "../../src-shared/api/public";

/**
 * `reprove`: the relay refused the proof's root as no longer known
 * (InvalidRoot: more insertions than the pool's 1,000-root history came
 * between fetching the path and sending); the withdrawal fetches a fresh path,
 * proves again and sends once more (merkle, prove, save, relay follow).
 */
export type WithdrawStage = "login" | "nullifier" | "fees" | "quote" | "merkle" | "prove" | "save" | "relay" | "reprove";

export interface WithdrawOptions {
  /**
   * Logs in with this wallet when the client holds no token, and once more
   * when the relay answers 401 (an expired token). Without it the client's
   * token, if any, is sent as is.
   */
  wallet?: WalletSigner;
  hasher?: FieldHasher;
  /** Artifact paths or another prover; the hasher is shared with the rest of the withdrawal. */
  prove?: Omit<ProveOptions, "hasher">;
  /** Told as each stage starts, so a CLI can say why it is waiting (proving takes seconds). */
  onStage?: (stage: WithdrawStage) => void;
  /**
   * The fee to prove and pay, in base units of the note's mint. Default: the
   * fee GET /fees publishes for this pool and deposit size. More is accepted
   * and charged; less is refused (FeeTooLow).
   */
  fee?: bigint | number;
  /**
   * Withdraw through /relay_swap: the recipient receives this mint, bought
   * with depositSize − fee; the fee stays in the note's mint.
   */
  swapTo?: string;
  /**
   * With swapTo: the least the recipient must receive, in base units of
   * swapTo, bound by the proof. Default: the quote's otherAmountThreshold
   * (its output less the pair's slippage).
   */
  minOut?: bigint | number;
  /**
   * Where the spent check and the Merkle path come from (docs/privacy.md).
   * Default `{ kind: "decoys" }`: the relay's indexer, asked for the leaf among
   * 8 random others and the nullifier among 8 random hashes, without the
   * session's token and on connections of its own. `{ kind: "chain", rpc }`
   * asks the relay nothing that names the note; `{ kind:
   * "relay-links-deposit" }` lets the relay link the deposit to the withdrawal.
   */
  lookup?: NoteLookup;
  /** Unused: decoys follow from the note and its piece (lookup.ts). */
  random?: RandomSource;
  /**
   * The part of the note to withdraw (protocol v3: /relay's depositSize), in
   * base units; the fee is charged on it. Default: the note's whole value.
   * What is left becomes the change note (`WithdrawResult.change`).
   */
  amount?: bigint;
  /**
   * Called with the proof (its change note included) after proving and
   * before anything is sent: a wallet writes the pending change note here
   * (docs/sdk.md, crash safety). A failure stops the withdrawal (stage `save`)
   * with nothing sent.
   */
  beforeRelay?: (proof: WithdrawalProof) => Result<void, string> | Promise<Result<void, string>>;
}

/** What a withdrawal through this relay costs now (GET /fees), and whom the proof must name. */
export interface RelayTermsNow {
  /** base58: `relayers[network]`, the key that signs the withdrawal and receives the fee. */
  relayer: string;
  fee: bigint;
  /** depositSize − fee: what the recipient receives (or what a swap sells). */
  toRecipient: bigint;
}

export interface WithdrawResult {
  /** The withdrawal transaction's signature, base58. */
  signature: string;
  /** Where the change leaf went (the relay's answer). */
  changeLeafIndex: number;
  /** What is left of the note (possibly 0), with its leaf index: the note to keep. */
  change: DepositNote;
  proof: WithdrawalProof;
  merkle: VerifiedNoteProof;
  /** The terms proved and sent: the relayer, the fee, what the recipient receives, and a swap's minOut. */
  terms: RelayTermsNow & { minOut: bigint | null };
  /** With swapTo: the quote checked before proving (the relay takes its own when the request arrives). */
  quote?: SwapQuote;
  /** Set when the first proof's root was refused as too old and the withdrawal was proved again against a fresh one (`proof` is the second). */
  reproved?: true;
}

export type WithdrawError =
  | { stage: "login"; failure: ApiFailure }
  | { stage: "nullifier"; failure: ApiFailure }
  /**
   * GET /fees failed, names no relayer for the note's network (a relay older
   * than protocol v2), or its fee does not leave anything of the deposit.
   */
  | { stage: "fees"; failure: ApiFailure }
  /**
   * With swapTo: /jupiter refused (InsufficientLiquidity: no route for the
   * pair), or gave no usable minimum (`noMinOut`: pass minOut); nothing was proved.
   */
  | { stage: "quote"; failure: ApiFailure; noMinOut?: true }
  /** get_nullifier says the note was already withdrawn; nothing was proved or sent. */
  | { stage: "spent"; address: string }
  | { stage: "merkle"; error: NoteProofError }
  | { stage: "prove"; error: ProveError }
  /** `beforeRelay` failed (the pending note could not be written): nothing was sent. */
  | { stage: "save"; message: string; proof: WithdrawalProof }
  /**
   * The relay refused, or did not answer. After a time-out, a broken
   * connection, a garbled answer or a 5xx the withdrawal may still have
   * landed: `landed` is what get_nullifier said afterwards (null when that
   * could not be asked either; absent after a plain refusal).
   */
  | { stage: "relay"; failure: ApiFailure; proof: WithdrawalProof; landed?: boolean | null };

/** What {@link prepareWithdrawal} answers when it stops: nothing was proved, or the proof failed. */
export type PrepareError = Extract<WithdrawError, { stage: "nullifier" | "fees" | "quote" | "spent" | "merkle" | "prove" }>;

/** What {@link prepareWithdrawal} answers. */
export type PrepareResult = Result<PreparedWithdrawal, PrepareError>;

/**
 * For a proof to look at rather than send (`relay-cli prove`): the note is
 * proved even when spent; `relayer` and `fee`, when given, are bound whatever
 * GET /fees says (it is then read to compare, and needed only for what is not
 * given); a swap with `minOut` given asks for no quote; and each reason the
 * relay would refuse the proof is told to `warn` as soon as it is found.
 */
export interface InspectOptions {
  relayer?: string;
  fee?: bigint;
  warn(warning: InspectWarning): void;
}

export type InspectWarning =
  /** get_nullifier says the note was already withdrawn: the relay will refuse the proof. */
  | { kind: "spent"; address: string }
  /** The relay signs the note's network with another key than the one bound. */
  | { kind: "relayer"; published: string; bound: string }
  /** The fee bound is below the relay's (FeeTooLow). */
  | { kind: "fee"; published: bigint; bound: bigint };

/** {@link prepareWithdrawal}'s options: withdraw's, less those of sending, and `inspect` for a proof that is only looked at. */
export type PrepareOptions = Omit<WithdrawOptions, "wallet" | "beforeRelay"> & { inspect?: InspectOptions };

/** {@link submitWithdrawal}'s options: withdraw's options of sending. */
export type SubmitOptions = Pick<WithdrawOptions, "wallet" | "onStage" | "beforeRelay">;

/** A withdrawal proved and not yet sent: what {@link submitWithdrawal} sends. */
export interface PreparedWithdrawal {
  note: DepositNote;
  recipient: string;
  proof: WithdrawalProof;
  merkle: VerifiedNoteProof;
  /** The terms proved: the relayer, the fee, what the recipient receives, and a swap's minOut. */
  terms: RelayTermsNow & { minOut: bigint | null };
  /** With swapTo: the quote checked before proving. */
  quote?: SwapQuote;
  /** Where the spent check and the path came from: submitting asks it again (a fresh path, the nullifier after a lost answer). */
  source: NoteSource;
  /** How the proof was made: submitting proves again with exactly these when the relay refuses the root as too old. */
  proving: ProveWithdrawalOptions;
}

const positiveInteger = (value: bigint | number, what: string): bigint => {
  const v = typeof value === "number" ? (Number.isSafeInteger(value) ? BigInt(value) : -1n) : value;
  if (v <= 0n || v > U64_MAX) throw new RangeError(`${what} ${value} is not a positive whole number of base units below 2^64`);
  return v;
};

/** The options in base units, checked, and the note's lookups: caller mistakes are thrown before anything is sent. */
interface CheckedOptions {
  amount: bigint;
  fee: bigint | undefined;
  minOut: bigint | undefined;
  hasher: FieldHasher;
  source: NoteSource;
}

async function checkOptions(client: RelayClient, note: DepositNote, options: PrepareOptions): Promise<CheckedOptions> {
  const fee = options.fee === undefined ? undefined : options.fee === 0 || options.fee === 0n ? 0n : positiveInteger(options.fee, "fee");
  const minOut = options.minOut === undefined ? undefined : positiveInteger(options.minOut, "minOut");
  if (minOut !== undefined && options.swapTo === undefined) throw new RangeError("minOut applies to a swap: give swapTo too");
  const amount = options.amount === undefined ? note.amount : positiveInteger(options.amount, "amount");
  if (amount > note.amount) throw new RangeError(`amount ${amount} is above the note's value ${note.amount}`);
  const inspect = options.inspect;
  if (inspect && fee !== undefined) throw new RangeError("give the fee to bind once: inspect.fee, not fee");
  if (inspect?.fee !== undefined && (inspect.fee < 0n || inspect.fee >= amount))
    throw new RangeError(`fee ${inspect.fee} must be below the amount withdrawn (${amount})`);
  const hasher = options.hasher ?? (await createPoseidonHasher());
  return { amount, fee, minOut, hasher, source: noteSource(client, note, options.lookup, { hasher, amount }) };
}

/**
 * Withdraws a deposited note to `recipient` through the relay (/relay, or
 * /relay_swap with `swapTo`): logs in if needed, refuses a spent note before
 * spending seconds on a proof, reads the relay's key and fee (GET /fees),
 * quotes a swap, fetches and locally checks the note's Merkle path, proves
 * for exactly those terms, and relays them. The spent check and the path
 * follow `options.lookup` (docs/privacy.md): by default the relay is never
 * asked for this note's leaf or nullifier alone. The recipient receives
 * `amount` (default: the note's value) minus the fee, or for a swap at least
 * `minOut`; what is left of the note is the result's `change`, at the leaf
 * index the relay answered. It is {@link prepareWithdrawal} then
 * {@link submitWithdrawal}, after a login when the client holds no token.
 */
export async function withdraw(
  client: RelayClient,
  note: DepositNote,
  recipient: string,
  options: WithdrawOptions = {},
): Promise<Result<WithdrawResult, WithdrawError>> {
  const checked = await checkOptions(client, note, options);
  if (!client.authToken && options.wallet) {
    options.onStage?.("login");
    const token = await login(client, options.wallet);
    if (!token.ok) return err({ stage: "login", failure: token });
  }
  const prepared = await prepareChecked(client, note, recipient, checked, options);
  if (!prepared.ok) return prepared;
  return submitWithdrawal(client, prepared.value, options);
}

/**
 * The first half of {@link withdraw}: refuses a spent note, reads the relay's
 * key and fee (GET /fees), quotes a swap and fixes its minOut, fetches and
 * checks the note's Merkle path, and proves for exactly those terms. Nothing
 * is sent to /relay; {@link submitWithdrawal} does that. Needs no login.
 */
export async function prepareWithdrawal(client: RelayClient, note: DepositNote, recipient: string, options: PrepareOptions = {}): Promise<PrepareResult> {
  return prepareChecked(client, note, recipient, await checkOptions(client, note, options), options);
}

async function prepareChecked(
  client: RelayClient,
  note: DepositNote,
  recipient: string,
  checked: CheckedOptions,
  options: PrepareOptions,
): Promise<PrepareResult> {
  const stage = options.onStage ?? (() => {});
  const { amount, hasher, source } = checked;

  stage("nullifier");
  const unspent = checkUnspent(await source.spent(), options.inspect);
  if (!unspent.ok) return unspent;

  stage("fees");
  const terms = await termsToBind(client, note, amount, checked.fee, options.inspect);
  if (!terms.ok) return err({ stage: "fees", failure: terms.error });

  const swap = await swapToBind(client, note, terms.value, { ...checked, swapTo: options.swapTo, inspect: options.inspect !== undefined, stage });
  if (!swap.ok) return swap;
  const { quote, minOut } = swap.value;

  stage("merkle");
  const merkle = await source.path();
  if (!merkle.ok) return err({ stage: "merkle", error: merkle.error });

  const bound = options.swapTo !== undefined && minOut !== null ? { outputMint: options.swapTo, minOut } : null;
  const proving: ProveWithdrawalOptions = { ...options.prove, hasher, relayer: terms.value.relayer, fee: terms.value.fee, swap: bound, amount };
  stage("prove");
  const proved = await proveWithdrawal(note, merkle.value, recipient, proving);
  if (!proved.ok) return err({ stage: "prove", error: proved.error });
  return ok({
    note,
    recipient,
    proof: proved.value,
    merkle: merkle.value,
    terms: { ...terms.value, minOut },
    ...(quote ? { quote } : {}),
    source,
    proving,
  });
}

/** A spent note stops a withdrawal before any proving; an inspected proof only warns (and goes on when the check failed). */
function checkUnspent(spent: ApiResult<NullifierStatus>, inspect: InspectOptions | undefined): Result<void, PrepareError> {
  if (inspect) {
    if (spent.ok && spent.value.address !== null) inspect.warn({ kind: "spent", address: spent.value.address });
    return ok(undefined);
  }
  if (!spent.ok) return err({ stage: "nullifier", failure: spent });
  if (spent.value.address !== null) return err({ stage: "spent", address: spent.value.address });
  return ok(undefined);
}

/** The relayer key and fee to prove: the relay's own (GET /fees), `fee` when paying more, or what `inspect` binds. */
async function termsToBind(
  client: RelayClient,
  note: DepositNote,
  amount: bigint,
  fee: bigint | undefined,
  inspect: InspectOptions | undefined,
): Promise<Result<RelayTermsNow, ApiFailure>> {
  if (!inspect) {
    const terms = await relayTermsNow(client, note, { amount, ...(fee === undefined ? {} : { fee }) });
    return terms.ok ? ok(terms.value) : err(terms);
  }
  // The relay's own terms, unless both are given (then GET /fees is only read to warn about a mismatch).
  const published = await relayTermsNow(client, note, { amount });
  if (!published.ok) {
    if (inspect.relayer === undefined || inspect.fee === undefined) return err(published);
    return ok({ relayer: inspect.relayer, fee: inspect.fee, toRecipient: amount - inspect.fee });
  }
  const relayer = inspect.relayer ?? published.value.relayer;
  const bound = inspect.fee ?? published.value.fee;
  if (relayer !== published.value.relayer) inspect.warn({ kind: "relayer", published: published.value.relayer, bound: relayer });
  if (bound < published.value.fee) inspect.warn({ kind: "fee", published: published.value.fee, bound });
  return ok({ relayer, fee: bound, toRecipient: amount - bound });
}

/**
 * With swapTo: the quote, and the minOut to prove (given, else the quote's
 * otherAmountThreshold). A pair without a route fails here, before seconds
 * of proving; an inspected proof with minOut given asks for no quote.
 */
async function swapToBind(
  client: RelayClient,
  note: DepositNote,
  terms: RelayTermsNow,
  o: { swapTo: string | undefined; minOut: bigint | undefined; inspect: boolean; stage: (stage: WithdrawStage) => void },
): Promise<Result<{ quote?: SwapQuote; minOut: bigint | null }, PrepareError>> {
  if (o.swapTo === undefined) return ok({ minOut: null });
  if (o.inspect && o.minOut !== undefined) return ok({ minOut: o.minOut });
  o.stage("quote");
  const quoted = await client.quote({ inputMint: note.mint, outputMint: o.swapTo, amount: terms.toRecipient, network: note.network });
  if (!quoted.ok) return err({ stage: "quote", failure: quoted });
  const quote = quoted.value;
  if (o.minOut !== undefined) return ok({ quote, minOut: o.minOut });
  const least = quote.otherAmountThreshold;
  if (least === undefined) {
    const message = "the quote has no otherAmountThreshold to prove as minOut: pass minOut";
    return err({ stage: "quote", noMinOut: true, failure: { ok: false, status: quoted.status, error: ClientError.BadResponse, message } });
  }
  if (BigInt(least) === 0n) {
    const message = `minOut: the quote's otherAmountThreshold for ${terms.toRecipient} is 0, too little to swap`;
    return err({ stage: "quote", noMinOut: true, failure: { ok: false, status: 400, error: "InvalidRequest", message } });
  }
  return ok({ quote, minOut: BigInt(least) });
}

/**
 * The second half of {@link withdraw}: hands the proof to `beforeRelay`,
 * sends it to /relay (or /relay_swap), and answers where the change leaf
 * went. When the relay refuses the proof's root as no longer known, it
 * fetches a fresh path, proves again with the same terms and sends once more
 * (stages reprove, merkle, prove, save, relay), once only.
 */
export async function submitWithdrawal(
  client: RelayClient,
  prepared: PreparedWithdrawal,
  options: SubmitOptions = {},
): Promise<Result<WithdrawResult, WithdrawError>> {
  const stage = options.onStage ?? (() => {});
  let { proof, merkle } = prepared;
  let reproved = false;
  for (;;) {
    if (options.beforeRelay) {
      stage("save");
      const saved = await options.beforeRelay(proof);
      if (!saved.ok) return err({ stage: "save", message: saved.error, proof });
    }

    stage("relay");
    const relayed = await relayProof(client, proof, prepared.recipient, prepared.source, options.wallet);
    if (!relayed.ok && relayed.error === "login") return err({ stage: "login", failure: relayed.failure });
    if (relayed.ok) {
      const { signature, changeLeafIndex } = relayed.value;
      return ok({
        signature,
        changeLeafIndex,
        change: withLeafIndex(proof.change, changeLeafIndex),
        proof,
        merkle,
        terms: prepared.terms,
        ...(prepared.quote ? { quote: prepared.quote } : {}),
        ...(reproved ? { reproved: true as const } : {}),
      });
    }
    if (reproved || !isStaleRoot(relayed.failure)) return relayFailure(relayed.failure, proof, prepared.source);
    // The root left the pool's history between the path and the relay (1,000 insertions: a flood of deposits, or a
    // long wait). The relay refused before anything was sent, so the note is unspent: one fresh path, one more proof,
    // one more send. Once only: a second refusal is reported, so a relay or a flood cannot keep the wallet proving.
    reproved = true;
    stage("reprove");
    const again = await proveAgain(prepared, stage);
    if (!again.ok) return again;
    ({ proof, merkle } = again.value);
  }
}

/** A fresh path and a proof on it, with the terms of the first proof. */
async function proveAgain(
  prepared: PreparedWithdrawal,
  stage: (stage: WithdrawStage) => void,
): Promise<Result<{ proof: WithdrawalProof; merkle: VerifiedNoteProof }, PrepareError>> {
  stage("merkle");
  const fresh = await prepared.source.path();
  if (!fresh.ok) return err({ stage: "merkle", error: fresh.error });
  stage("prove");
  const proved = await proveWithdrawal(prepared.note, fresh.value, prepared.recipient, prepared.proving);
  if (!proved.ok) return err({ stage: "prove", error: proved.error });
  return ok({ proof: proved.value, merkle: fresh.value });
}

/** The relay's answer when the proof's root is no longer one it (or the pool) accepts; SPEC's name is InvalidRoot, the program's UnknownRoot. */
function isStaleRoot(failure: ApiFailure): boolean {
  return failure.status === 400 && (failure.error === "InvalidRoot" || failure.error === "UnknownRoot");
}

/**
 * Sends a proof to /relay (or /relay_swap): once more after a broken
 * connection if the nullifier is still unspent, and once more after a fresh
 * login when the relay answers 401.
 */
async function relayProof(
  client: RelayClient,
  proof: WithdrawalProof,
  recipient: string,
  source: NoteSource,
  wallet: WalletSigner | undefined,
): Promise<{ ok: true; value: RelaySuccess } | { ok: false; error: "relay"; failure: ApiFailure } | { ok: false; error: "login"; failure: ApiFailure }> {
  // depth is always TREE_DEPTH on the wire; the client adds it.
  const request: WithdrawalRequest = {
    nullifierHash: proof.nullifierHash,
    proof: proof.proof,
    root: proof.root,
    recipient,
    depositSize: proof.amount,
    mint: proof.mint,
    network: proof.network,
    fee: proof.fee,
    relayer: proof.relayer,
    changeCommitment: proof.changeCommitment,
  };
  // Proving blocks the event loop for seconds, so a pooled keep-alive connection the relay closed
  // meanwhile is still in the pool: one turn of the loop lets the close be seen before it is reused.
  await new Promise((resolve) => setTimeout(resolve, 20));
  const send = (): Promise<ApiResult<RelaySuccess>> => {
    if (proof.swap === null) return client.relay(request);
    const { mint, ...rest } = request;
    return client.relaySwap({ ...rest, input_mint: mint, output_mint: proof.swap.outputMint, minOut: proof.swap.minOut });
  };
  let relayed = await send();
  if (!relayed.ok && relayed.error === ClientError.NetworkError) {
    // The connection broke before an answer. If the nullifier is still unspent, sending the same request
    // again is safe: a withdrawal lands at most once, whatever happened to the first one.
    const between = await source.spentAfterRelay();
    if (between.ok && between.value.address === null) relayed = await send();
  }
  if (!relayed.ok && relayed.status === 401 && wallet) {
    // The token expired while the proof was built, or was never valid: one fresh login, then the same request.
    const token = await login(client, wallet);
    if (!token.ok) return { ok: false, error: "login", failure: token };
    relayed = await send();
  }
  return relayed.ok ? { ok: true, value: relayed.value } : { ok: false, error: "relay", failure: relayed };
}

/** A refusal, or no usable answer: after the latter the transaction may have landed anyway, so ask the chain's view. */
async function relayFailure(relayed: ApiFailure, proof: WithdrawalProof, source: NoteSource): Promise<Result<never, WithdrawError>> {
  if (relayed.status === 0 || relayed.status >= 500 || relayed.error === ClientError.BadResponse) {
    const after = await source.spentAfterRelay();
    return err({ stage: "relay", failure: relayed, proof, landed: after.ok ? after.value.address !== null : null });
  }
  return err({ stage: "relay", failure: relayed, proof });
}

/**
 * The relay's terms for withdrawing `amount` of this note now (GET /fees;
 * default amount: the note's value): its key for the note's network and the
 * fee for the pool and that amount, or `fee` when given (a caller paying
 * more). A relay that names no key for the network speaks an older
 * protocol: a proof cannot be bound to it.
 */
export async function relayTermsNow(
  client: RelayClient,
  note: DepositNote,
  options: { fee?: bigint; amount?: bigint } = {},
): Promise<ApiResult<RelayTermsNow>> {
  const fees = await client.fees();
  if (!fees.ok) return fees;
  const relayer = fees.value.relayers[note.network];
  if (relayer === undefined) {
    return {
      ok: false,
      status: fees.status,
      error: ClientError.BadResponse,
      message: `GET /fees names no relayer for ${note.network} (relayers[${note.network}]): the relay does not speak protocol v2 or later`,
    };
  }
  const amount = options.amount ?? note.amount;
  const published = relayFee(fees.value, note.network, note.mint, amount);
  const fee = options.fee ?? published?.fee;
  if (fee === undefined || fee >= amount) {
    return {
      ok: false,
      status: 400,
      error: "InvalidRequest",
      message: `depositSize: ${amount} does not cover the relayer fee${fee === undefined ? "" : ` ${fee}`}`,
    };
  }
  return { ok: true, status: fees.status, value: { relayer, fee, toRecipient: amount - fee } };
}

/**
 * What relay_swap would swap for this note now: depositSize − fee (GET /fees,
 * or `options.fee`) into `outputMint`, at the pair's slippage. Its
 * otherAmountThreshold is the minOut a wallet proves with.
 */
export async function quoteSwap(client: RelayClient, note: DepositNote, outputMint: string, options: { fee?: bigint } = {}): Promise<ApiResult<SwapQuote>> {
  const terms = await relayTermsNow(client, note, options);
  if (!terms.ok) return terms;
  return client.quote({ inputMint: note.mint, outputMint, amount: terms.value.toRecipient, network: note.network });
}
