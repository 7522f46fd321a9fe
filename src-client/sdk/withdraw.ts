import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { createPoseidonHasher } from "../../src-shared/crypto/poseidon-wasm";
import { err, ok, type Result } from "../../src-shared/result";
import { ClientError, relayFee, type ApiFailure, type ApiResult, type RelayClient, type WithdrawalRequest } from "./http";
import type { WalletSigner } from "./keypair";
import { login } from "./login";
import type { DepositNote } from "./note";
import { proveWithdrawal, type ProveError, type ProveOptions, type WithdrawalProof } from "./prove";
import { getNoteNullifier, getNoteProof, type NoteProofError, type VerifiedNoteProof } from "./tree";
import type { RelaySuccess, SwapQuote } from "./wire";

export type WithdrawStage = "login" | "nullifier" | "quote" | "merkle" | "prove" | "relay";

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
   * Withdraw through /relay_swap: the recipient receives this mint, bought
   * with depositSize − fee at the pair's slippage; the fee stays in the note's mint.
   */
  swapTo?: string;
}

export interface WithdrawResult {
  /** The withdrawal transaction's signature, base58. */
  signature: string;
  proof: WithdrawalProof;
  merkle: VerifiedNoteProof;
  /** With swapTo: the quote checked before proving (the relay takes its own when the request arrives). */
  quote?: SwapQuote;
}

export type WithdrawError =
  | { stage: "login"; failure: ApiFailure }
  | { stage: "nullifier"; failure: ApiFailure }
  /** With swapTo: /fees or /jupiter refused (InsufficientLiquidity: no route for the pair); nothing was proved. */
  | { stage: "quote"; failure: ApiFailure }
  /** get_nullifier says the note was already withdrawn; nothing was proved or sent. */
  | { stage: "spent"; address: string }
  | { stage: "merkle"; error: NoteProofError }
  | { stage: "prove"; error: ProveError }
  /**
   * The relay refused, or did not answer. After a time-out, a broken
   * connection, a garbled answer or a 5xx the withdrawal may still have
   * landed: `landed` is what get_nullifier said afterwards (null when that
   * could not be asked either; absent after a plain refusal).
   */
  | { stage: "relay"; failure: ApiFailure; proof: WithdrawalProof; landed?: boolean | null };

/**
 * Withdraws a deposited note to `recipient` through the relay (SPEC /relay):
 * logs in if needed, refuses a spent note before spending seconds on a proof,
 * fetches and locally checks the note's Merkle path, proves, and relays. The
 * recipient receives the note's amount minus the relayer's fee (GET /fees).
 */
export async function withdraw(client: RelayClient, note: DepositNote, recipient: string, options: WithdrawOptions = {}): Promise<Result<WithdrawResult, WithdrawError>> {
  const stage = options.onStage ?? (() => {});
  const hasher = options.hasher ?? (await createPoseidonHasher());

  if (!client.authToken && options.wallet) {
    stage("login");
    const token = await login(client, options.wallet);
    if (!token.ok) return err({ stage: "login", failure: token });
  }

  stage("nullifier");
  const spent = await getNoteNullifier(client, note);
  if (!spent.ok) return err({ stage: "nullifier", failure: spent });
  if (spent.value.address !== null) return err({ stage: "spent", address: spent.value.address });

  let quote: SwapQuote | undefined;
  if (options.swapTo !== undefined) {
    stage("quote");
    // A pair without a route fails here, before seconds of proving.
    const quoted = await quoteSwap(client, note, options.swapTo);
    if (!quoted.ok) return err({ stage: "quote", failure: quoted });
    quote = quoted.value;
  }

  stage("merkle");
  const merkle = await getNoteProof(client, note, { hasher });
  if (!merkle.ok) return err({ stage: "merkle", error: merkle.error });

  stage("prove");
  const proved = await proveWithdrawal(note, merkle.value, recipient, { ...options.prove, hasher });
  if (!proved.ok) return err({ stage: "prove", error: proved.error });
  const proof = proved.value;

  stage("relay");
  // depth is always TREE_DEPTH on the wire; the client adds it.
  const request: WithdrawalRequest = {
    nullifierHash: proof.nullifierHash,
    proof: proof.proof,
    root: proof.root,
    recipient,
    depositSize: proof.amount,
    mint: proof.mint,
    network: proof.network,
  };
  // Proving blocks the event loop for seconds, so a pooled keep-alive connection the relay closed
  // meanwhile is still in the pool: one turn of the loop lets the close be seen before it is reused.
  await new Promise((resolve) => setTimeout(resolve, 20));
  const swapTo = options.swapTo;
  const send = (): Promise<ApiResult<RelaySuccess>> => {
    if (swapTo === undefined) return client.relay(request);
    const { mint, ...rest } = request;
    return client.relaySwap({ ...rest, input_mint: mint, output_mint: swapTo });
  };
  let relayed = await send();
  if (!relayed.ok && relayed.error === ClientError.NetworkError) {
    // The connection broke before an answer. If the nullifier is still unspent, sending the same request
    // again is safe: a withdrawal lands at most once, whatever happened to the first one.
    const between = await getNoteNullifier(client, note);
    if (between.ok && between.value.address === null) relayed = await send();
  }
  if (!relayed.ok && relayed.status === 401 && options.wallet) {
    // The token expired while the proof was built, or was never valid: one fresh login, then the same request.
    const token = await login(client, options.wallet);
    if (!token.ok) return err({ stage: "login", failure: token });
    relayed = await send();
  }
  if (relayed.ok) return ok({ signature: relayed.value.signature, proof, merkle: merkle.value, ...(quote ? { quote } : {}) });

  // No answer, a garbled one, or a submission failure: the transaction may have landed anyway, so ask the chain's view.
  if (relayed.status === 0 || relayed.status >= 500 || relayed.error === ClientError.BadResponse) {
    const after = await getNoteNullifier(client, note);
    return err({ stage: "relay", failure: relayed, proof, landed: after.ok ? after.value.address !== null : null });
  }
  return err({ stage: "relay", failure: relayed, proof });
}

/**
 * What relay_swap would swap for this note now: depositSize − fee (GET /fees)
 * into `outputMint`, at the pair's slippage (the relay's default for the pair).
 */
export async function quoteSwap(client: RelayClient, note: DepositNote, outputMint: string): Promise<ApiResult<SwapQuote>> {
  const fees = await client.fees();
  if (!fees.ok) return fees;
  const fee = relayFee(fees.value, note.network, note.mint, note.amount);
  if (!fee) return { ok: false, status: 400, error: "InvalidRequest", message: "depositSize: does not cover the relayer fee" };
  return client.quote({ inputMint: note.mint, outputMint, amount: fee.toRecipient, network: note.network });
}
