/**
 * Real withdrawals for the relay's HTTP tests (protocol v3): a note made and
 * its precommitment deposited through /sandbox/deposit (or the test chain), or
 * a change note a landed withdrawal left, its Merkle path fetched from the
 * relay and checked, and a real Groth16 proof of withdrawing all of it or a
 * part, built with the committed artifacts, bound to the relay's terms (its key and
 * fee from GET /fees, and for a swap the output mint and minOut) or to the
 * terms a test asks for. Nothing here fakes a proof. Proving costs seconds,
 * so proofs are cached on disk by the exact witness input, extDataHash
 * included (and the artifacts): a re-run that builds the same tree and
 * withdraws the same note to the same recipient on the same terms reuses the
 * proof, and a cached proof is verified against the verification key before
 * it is used.
 *
 * Cache hits need a deterministic test: the same deposits in the same order
 * into a fresh relay (the root depends on every earlier leaf of the pool), a
 * fixed recipient ({@link testRecipient}), and the default seed or a fixed one.
 */
import { createHash, randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createPoseidonHasher } from "../../src-shared/crypto/poseidon-wasm";
import { PROTOCOL_VERSION, PUBLIC_SIGNAL_NAMES } from "../../src-shared/crypto/protocol";
import { bytesEqual, toHex } from "../../src-shared/encoding/bytes";
import { encodeBase58 } from "../../src-shared/encoding/base58";
import type { Network } from "../../src-shared/networks";
import type { SnarkjsProof } from "../../src-shared/zk/proof-codec";
import { relayFee } from "../../src-client/sdk/fees";
import { RelayClient } from "../../src-client/sdk/http";
import { createNote, withDeposit, type DepositNote, type RandomSource } from "../../src-client/sdk/note";
import { DEFAULT_ARTIFACTS, fastProver, proveWithdrawal, verifyWithdrawalProof, type Prover, type WithdrawWitnessInput } from "../../src-client/sdk/prove";
import { getNoteProof } from "../../src-client/sdk/tree";
import { encodeProof, fromSnarkjs } from "../../src-shared/zk/proof-codec";
import { sandboxTestChain, type ChainWallet, type TestChain } from "./test-chain";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const PROOF_CACHE_DIR = path.join(ROOT, "out", "test-proofs");

/** What the helper needs of a wallet: tests/support/wallet.ts's TestWallet fits. */
export type { ChainWallet as ProofWallet } from "./test-chain";

/**
 * The JSON body of POST /relay (the withdrawal request, plus protocol v2's
 * `fee` and `relayer` and v3's `changeCommitment`), ready to send as is. When the withdrawal
 * was proved for a swap it also carries `minOut`, and `swapBody` is the
 * matching /relay_swap request.
 */
export interface RelayBody {
  nullifierHash: number[];
  proof: number[];
  root: number[];
  recipient: string;
  depth: 32;
  /** The part of the note withdrawn. */
  depositSize: number;
  mint: string;
  network: Network;
  /** Protocol v3: the change leaf the withdrawal inserts (32 bytes), bound by the proof. */
  changeCommitment: number[];
  /** Base units of `mint`: the fee the proof is bound to. */
  fee: number;
  /** base58: the relayer key the proof is bound to. */
  relayer: string;
  /** Only for a proof made for a swap: the least the recipient receives of the output mint (decimal text). */
  minOut?: string;
}

/** The JSON body of POST /relay_swap for a proof made with `swap`. */
export interface RelaySwapBody extends Omit<RelayBody, "mint" | "minOut"> {
  input_mint: string;
  output_mint: string;
  minOut: string;
}

export interface PrepareWithdrawalOptions {
  /** base58; use {@link testRecipient} for a fixed one, so re-runs hit the proof cache. */
  recipient: string;
  /** Base units deposited: the new note's value. Default 1 000 000. Ignored with `spend`. */
  amount?: number;
  /** The part withdrawn (depositSize). Default: all of the note's value. */
  withdraw?: number;
  /**
   * Spend this note instead of depositing a new one: a change note a landed
   * withdrawal left ({@link PreparedWithdrawal.changeAt} gives it its leaf).
   */
  spend?: DepositNote;
  network?: Network;
  /**
   * The note's secrets are derived from this. Default: network, mint, amount,
   * recipient, the pool's nextIndex and a per-process call count, which is the
   * same on every run of a deterministic test and never repeats within one.
   */
  seed?: string;
  /** Default out/test-proofs. */
  cacheDir?: string;
  /** Where the deposit is made; default the relay's sandbox for `network`. */
  chain?: TestChain;
  /**
   * The relayer key the proof is bound to. Default: the relay's own,
   * GET /fees `relayers[network]`. Give another to make a proof the relay
   * must refuse (the body then names that key too; change `body.relayer` back
   * to get InvalidProof instead of the request-level refusal).
   */
  relayer?: string;
  /** The fee the proof is bound to, in base units of `mint`. Default: the fee GET /fees publishes for the pool and amount. */
  fee?: number | bigint;
  /**
   * Prove for /relay_swap into `outputMint`. `minOut` defaults to the
   * otherAmountThreshold of a /jupiter quote for amount − fee (so the swap
   * pool must exist by then); give it to bind any other minimum.
   */
  swap?: { outputMint: string; minOut?: number | bigint | string };
}

export interface PreparedWithdrawal {
  /** POST it to /relay with an x-api-auth token (for a swap proof, see `swapBody`). */
  body: RelayBody;
  /** With `swap`: the /relay_swap request the proof was made for. */
  swapBody?: RelaySwapBody;
  /** The terms the proof is bound to. */
  terms: { relayer: string; fee: bigint; swap: { outputMint: string; minOut: bigint } | null };
  /** The note spent. */
  note: DepositNote;
  /** The change note the withdrawal leaves (value − withdrawn, possibly 0); its leaf index is known once it landed. */
  change: DepositNote;
  /** The deposit that made the spent note's chain (for a change note, its chain's original deposit). */
  deposit: { signature: string; leafIndex: number };
  /** Time spent in the prover, or checking the cached proof on a hit. */
  provingMs: number;
  cached: boolean;
  cacheFile: string;
}

/** A fixed, valid-looking recipient address for a label, so a test's witness inputs repeat across runs. */
export function testRecipient(label: string): string {
  return encodeBase58(createHash("sha256").update(`test-recipient:${label}`).digest());
}

/** A deterministic byte stream from a seed (SHA-256 in counter mode), for createNote's secrets. */
export function seededRandom(seed: string): RandomSource {
  let counter = 0;
  return (buf) => {
    for (let off = 0; off < buf.length; off += 32) {
      const block = createHash("sha256").update(`${seed}:${counter++}`).digest();
      buf.set(block.subarray(0, Math.min(32, buf.length - off)), off);
    }
  };
}

/** The relay's terms now (GET /fees): its key for `network` and the fee for a withdrawal of `amount` from the pool. */
export async function relayTerms(relayUrl: string, network: Network, mint: string, amount: number | bigint): Promise<{ relayer: string; fee: bigint }> {
  const client = new RelayClient({ baseUrl: relayUrl, timeoutMs: 30_000 });
  const fees = await client.fees();
  if (!fees.ok) throw new Error(`GET /fees: ${fees.status} ${fees.error} ${fees.message ?? ""}`);
  const relayer = fees.value.relayers[network];
  if (!relayer) throw new Error(`GET /fees names no relayer for ${network} (protocol v2 publishes relayers[network])`);
  const fee = relayFee(fees.value, network, mint, BigInt(amount));
  if (!fee) throw new Error(`a withdrawal of ${amount} does not cover the fee`);
  return { relayer, fee: fee.fee };
}

const callCounts = new Map<string, number>();

/**
 * Makes a note of `amount` of `mint`, deposits its precommitment from
 * `wallet` (which must hold the funds), fetches and checks its Merkle path
 * (which rebuilds the relay's root only if the pool inserted the note's own
 * leaf), and proves a withdrawal to `options.recipient` bound to the relay's
 * terms (or the ones given). The answer's `body` is the /relay request.
 */
export async function prepareWithdrawal(relayUrl: string, wallet: ChainWallet, mint: string, options: PrepareWithdrawalOptions): Promise<PreparedWithdrawal> {
  const network = options.network ?? "mainnet";
  const client = new RelayClient({ baseUrl: relayUrl, timeoutMs: 30_000 });
  const hasher = await createPoseidonHasher();

  let note: DepositNote;
  let deposit: { signature: string; leafIndex: number };
  if (options.spend) {
    note = options.spend;
    if (note.mint !== mint || note.network !== network) throw new Error(`the note to spend is of ${note.network}/${note.mint}, not ${network}/${mint}`);
    const original = note.deposit;
    if (!original || original.leafIndex === null) throw new Error("the note to spend carries no landed deposit of its chain");
    deposit = { signature: original.signature, leafIndex: original.leafIndex };
  } else {
    const amount = options.amount ?? 1_000_000;
    let seed = options.seed;
    if (seed === undefined) {
      const tree = await client.getMerkle(mint, network);
      // A pool the sandbox has not opened yet is opened by the first deposit.
      if (!tree.ok && tree.error !== "PoolNotFound") throw new Error(`get_merkle ${mint} on ${network}: ${tree.status} ${tree.error} ${tree.message ?? ""}`);
      const nextIndex = tree.ok ? tree.value.json.nextIndex : 0;
      const key = `${network}/${mint}/${amount}/${options.recipient}`;
      const n = (callCounts.get(key) ?? 0) + 1;
      callCounts.set(key, n);
      seed = `${key}/leaf-${nextIndex}/call-${n}`;
    }
    const created = await createNote({ network, mint, amount, hasher, random: seededRandom(seed) });
    if (!created.ok) throw new Error(`note: ${created.error}`);
    const chain = options.chain ?? sandboxTestChain(relayUrl, network);
    // The deposit carries the precommitment; the pool computes the leaf (note.commitment).
    const dep = await chain.deposit(wallet, created.value.precommitment, amount, mint);
    if (dep.status !== "indexed" || dep.leafIndex === null) {
      throw new Error(`the deposit is ${dep.status}: is this note's leaf already in the pool (same seed twice)?`);
    }
    if (!dep.commitment || !bytesEqual(dep.commitment, created.value.commitment)) {
      const got = dep.commitment ? `0x${toHex(dep.commitment)}` : "no leaf";
      throw new Error(`the pool answered ${got}, not Poseidon(precommitment, amount, mint) = 0x${toHex(created.value.commitment)}`);
    }
    note = withDeposit(created.value, { signature: dep.signature, status: dep.status, leafIndex: dep.leafIndex, wallet: wallet.address });
    deposit = { signature: dep.signature, leafIndex: dep.leafIndex };
  }
  const withdraw = BigInt(options.withdraw ?? note.amount);

  // GET /fees is read only for what the test left out; the fee is charged on the part withdrawn.
  const published = options.relayer !== undefined && options.fee !== undefined ? null : await relayTerms(relayUrl, network, mint, withdraw);
  const relayerAndFee = { relayer: options.relayer ?? published!.relayer, fee: options.fee !== undefined ? BigInt(options.fee) : published!.fee };

  let swap: { outputMint: string; minOut: bigint } | null = null;
  if (options.swap) {
    let minOut: bigint;
    if (options.swap.minOut !== undefined) minOut = BigInt(options.swap.minOut);
    else {
      const q = await client.quote({ inputMint: mint, outputMint: options.swap.outputMint, amount: withdraw - relayerAndFee.fee, network });
      if (!q.ok)
        throw new Error(
          `/jupiter ${mint} -> ${options.swap.outputMint}: ${q.status} ${q.error} ${q.message ?? ""} (create the swap pool before preparing, or give swap.minOut)`,
        );
      if (q.value.otherAmountThreshold === undefined) throw new Error("the quote has no otherAmountThreshold");
      minOut = BigInt(q.value.otherAmountThreshold);
    }
    swap = { outputMint: options.swap.outputMint, minOut };
  }

  const merkle = await getNoteProof(client, note, { hasher });
  if (!merkle.ok) throw new Error(`Merkle proof of the note's leaf: ${JSON.stringify(merkle.error)}`);

  const cache = cachedProver(options.cacheDir ?? PROOF_CACHE_DIR);
  const proved = await proveWithdrawal(note, merkle.value, options.recipient, {
    hasher,
    prover: cache.prover,
    relayer: relayerAndFee.relayer,
    fee: relayerAndFee.fee,
    swap,
    amount: withdraw,
  });
  if (!proved.ok) throw new Error(`proving: ${proved.error.kind}: ${proved.error.message}`);
  const p = proved.value;
  // Proving holds this process for seconds, past a server's keep-alive timeout. One turn of timers
  // and socket events lets a pooled connection the server has closed (in this process or another)
  // be dropped before the test's next request goes out on it.
  if (!cache.last().cached) await new Promise((resolve) => setTimeout(resolve, 100));

  const body: RelayBody = {
    nullifierHash: Array.from(p.nullifierHash),
    proof: Array.from(p.proof),
    root: Array.from(p.root),
    recipient: options.recipient,
    depth: 32,
    depositSize: Number(p.amount),
    mint,
    network,
    changeCommitment: Array.from(p.changeCommitment),
    fee: Number(p.fee),
    relayer: p.relayer,
    ...(swap ? { minOut: swap.minOut.toString() } : {}),
  };
  let swapBody: RelaySwapBody | undefined;
  if (swap) {
    const { mint: inputMint, minOut: _minOut, ...rest } = body;
    swapBody = { ...rest, input_mint: inputMint, output_mint: swap.outputMint, minOut: swap.minOut.toString() };
  }

  const change = p.change;
  return {
    body,
    ...(swapBody ? { swapBody } : {}),
    terms: { relayer: p.relayer, fee: p.fee, swap },
    note,
    change,
    deposit,
    provingMs: p.provingMs,
    cached: cache.last().cached,
    cacheFile: cache.last().file,
  };
}

/** The change note a landed withdrawal left, at the leaf the relay answered (`changeLeafIndex`): what a next `spend` takes. */
export function changeNoteAt(w: PreparedWithdrawal, leafIndex: number): DepositNote {
  return { ...w.change, change: { ...w.change.change!, leafIndex } };
}

interface CacheEntry {
  key: string;
  publicSignals: string[];
  proof: SnarkjsProof;
  provingMs: number;
  provedAt: string;
}

let artifactDigest: string | null = null;

/** The proving artifacts are part of the key: a new zkey makes every cached proof useless. */
function artifactsDigest(wasmPath: string, zkeyPath: string): string {
  if (wasmPath === DEFAULT_ARTIFACTS.wasmPath && zkeyPath === DEFAULT_ARTIFACTS.zkeyPath && artifactDigest) return artifactDigest;
  const h = createHash("sha256");
  for (const f of [wasmPath, zkeyPath]) h.update(createHash("sha256").update(readFileSync(f)).digest());
  const digest = h.digest("hex");
  if (wasmPath === DEFAULT_ARTIFACTS.wasmPath && zkeyPath === DEFAULT_ARTIFACTS.zkeyPath) artifactDigest = digest;
  return digest;
}

/**
 * The cache key: SHA-256 over the artifacts' digest, the protocol, and the
 * witness input's canonical JSON: every field, in sorted order, so a field
 * added to the input (v2's extDataHash) is part of the key without anyone
 * remembering to add it, and a v1 input can never name a v2 proof.
 */
export function witnessInputKey(
  input: WithdrawWitnessInput,
  wasmPath: string = DEFAULT_ARTIFACTS.wasmPath,
  zkeyPath: string = DEFAULT_ARTIFACTS.zkeyPath,
): string {
  const record = input as unknown as Record<string, unknown>;
  const canonical = JSON.stringify(
    Object.keys(record)
      .sort()
      .map((k) => [k, record[k]]),
  );
  return createHash("sha256").update(artifactsDigest(wasmPath, zkeyPath)).update(`protocol-${PROTOCOL_VERSION}\n`).update(canonical).digest("hex");
}

/**
 * A {@link Prover} backed by a disk cache keyed by {@link witnessInputKey}.
 * The witness input itself (it holds the note's secrets) is not stored; only
 * the proof and its public signals. A cached proof is used only after it
 * verifies against the verification key for exactly the expected signals.
 */
export function cachedProver(cacheDir: string = PROOF_CACHE_DIR): { prover: Prover; last(): { cached: boolean; file: string } } {
  let last = { cached: false, file: "" };
  const prover: Prover = async (input, wasmPath, zkeyPath) => {
    const key = witnessInputKey(input, wasmPath, zkeyPath);
    const file = path.join(cacheDir, `${key}.json`);
    // The public signals in circuit order (root, nullifierHash, recipient, amount, mint, extDataHash, changeCommitment).
    const expected = PUBLIC_SIGNAL_NAMES.map((name) => input[name]);
    const hit = readEntry(file, key);
    if (hit && hit.publicSignals.join() === expected.join()) {
      const verdict = await verifyWithdrawalProof(encodeProof(fromSnarkjs(hit.proof)), expected);
      if (verdict.ok && verdict.value) {
        last = { cached: true, file };
        return { proof: hit.proof, publicSignals: hit.publicSignals };
      }
    }
    const t0 = performance.now();
    // The SDK's default prover: the proof a wallet sends, made 2-3x faster than snarkjs's fullProve
    // (docs/benchmarks.md, "CI time"); with an empty cache (a fresh clone) proving is most of the tests' CPU.
    const out = await fastProver(input, wasmPath, zkeyPath);
    const entry: CacheEntry = {
      key,
      publicSignals: out.publicSignals.map(String),
      proof: out.proof,
      provingMs: Math.round(performance.now() - t0),
      provedAt: new Date().toISOString(),
    };
    mkdirSync(cacheDir, { recursive: true });
    const tmp = `${file}.${randomUUID()}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(entry, null, 2)}\n`);
    renameSync(tmp, file);
    last = { cached: false, file };
    return out;
  };
  return { prover, last: () => last };
}

function readEntry(file: string, key: string): CacheEntry | null {
  try {
    const e = JSON.parse(readFileSync(file, "utf8")) as CacheEntry;
    return e.key === key && Array.isArray(e.publicSignals) && typeof e.proof === "object" ? e : null;
  } catch {
    return null;
  }
}
