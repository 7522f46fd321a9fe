/**
 * Indexer backfill from chain history: N real deposits made on the local
 * validator (src-localnet, pool program, web3.js wire transactions, several
 * deposit instructions per transaction), then a relay started as a child
 * process bound to it (RELAY_CONFIG, `mainnet` = solana) with an empty data
 * dir, timed until get_merkle reports nextIndex N with the on-chain root.
 * Peer: fixed-merkle-tree building the same leaves in memory, same run.
 */
import { createPrivateKey, sign as cryptoSign, type KeyObject } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Keypair, PublicKey, Transaction, TransactionInstruction, type AccountMeta } from "@solana/web3.js";
import { MerkleTree as FixedMerkleTree } from "fixed-merkle-tree";
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { createFastPoseidonHasher } from "../../src-server/adapters/poseidon-fast/fast-hasher";
import { encodeBase58 } from "../../src-shared/encoding/base58";
import { toHex } from "../../src-shared/encoding/bytes";
import {
  DEPOSIT_ACCOUNTS,
  commitmentMarkerAddress,
  currentRoot,
  decodeTreeAccount,
  depositCommitment,
  depositInstruction,
  depositReceiptAddress,
  encodePoolInstruction,
  poolTreeAddress,
} from "../../src-shared/pool-program";
import { PACKET_DATA_SIZE } from "../../src-localnet/ledger/transaction";
import { solanaRelayConfig, startLocalnet, type Localnet } from "../../tests/support/localnet";
import { USDC } from "../../tests/support/sandbox";
import { makeLeaves, tempDir, toDecimal } from "../lib/data";
import type { Metric } from "../lib/metric";
import { fmtPoseidonHash } from "../lib/peer";
import { logMessage, procCpuMs, startRelayChild, type ListeningProcess } from "../lib/proc";
import { fmtNum, gc, rate } from "../lib/stats";
import type { BenchCase } from "../lib/bench-case";

const SOL = 1_000_000_000;
/** Deposit instructions per transaction: 7 do not fit in 1232 bytes (each adds 2 account keys and a 68-byte instruction). */
const DEPOSITS_PER_TX = 6;
/** Transactions per blockhash: the validator's blockhash lives 150 slots of 50 ms (7.5 s); a wave (about 1.5 s here) is sent and landed well inside that. */
const WAVE_TXS = 25;
const DEPOSITORS = 4;
const SLOT_MS = 50;

/** PKCS#8 DER prefix of an Ed25519 private key (RFC 8410), for node:crypto signing with a web3.js Keypair's seed. */
const PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

interface Depositor {
  keypair: Keypair;
  address: string;
  key: KeyObject;
  /** depositInstruction's accounts for this depositor: only the receipt and the commitment marker change per deposit. */
  keys: AccountMeta[];
  nextNonce: bigint;
}

interface MakeStats {
  totalMs: number;
  /** Building instructions and messages (receipt and marker PDAs, message compile). */
  buildMs: number;
  /** ed25519 signing (node:crypto). */
  signMs: number;
  /** sendTransaction round trips (the RPC decodes and queues; the ledger may run queued transactions meanwhile). */
  sendMs: number;
  /** Waiting for the wave's last transaction to land, then for `confirmed`. */
  waitMs: number;
  /** Time the validator's ledger spent processing the deposit transactions (its queue busy). */
  ledgerMs: number;
  txs: number;
  wireBytes: number;
  lastSignature: string;
}

const RECEIPT_KEY = DEPOSIT_ACCOUNTS.indexOf("receipt");
const MARKER_KEY = DEPOSIT_ACCOUNTS.indexOf("commitmentMarker");

/** A transaction's wire bytes: one signature (compact-u16 count 1) and the message. */
function signedWire(message: Uint8Array, key: KeyObject): { wire: Uint8Array; signature: string } {
  const sig = cryptoSign(null, message, key);
  const wire = new Uint8Array(1 + 64 + message.length);
  wire[0] = 1;
  wire.set(sig, 1);
  wire.set(message, 65);
  return { wire, signature: encodeBase58(sig) };
}

/**
 * Sums the time the ledger's queue is busy: transactions run one at a time in
 * submission order, so one starts when it is submitted or when the previous
 * one finished, whichever is later. Returns a reader and an undo.
 */
function ledgerBusy(net: Localnet): { ms(): number; restore(): void } {
  const ledger = net.validator.ledger;
  const submit = ledger.submit.bind(ledger);
  let busy = 0;
  let lastDone = 0;
  ledger.submit = (tx) => {
    const submittedAt = performance.now();
    const job = submit(tx);
    void job.then(
      () => {
        const now = performance.now();
        busy += now - Math.max(submittedAt, lastDone);
        lastDone = now;
      },
      () => {},
    );
    return job;
  };
  return { ms: () => busy, restore: () => void (ledger.submit = submit) };
}

/**
 * Makes `leaves.length / 32` deposits of 1 base unit, in order (deposit i
 * sends precommitments[i]; the program makes it leaf i, leaves[i]): transactions are sent one after another, and the validator
 * queues them in arrival order, so chain order is this order.
 */
async function makeDeposits(net: Localnet, precommitments: Uint8Array, leaves: Uint8Array, hasher: FieldHasher, log: (m: string) => void): Promise<MakeStats> {
  const { connection, programId } = net;
  const n = leaves.length / 32;
  const depositors: Depositor[] = [];
  for (let d = 0; d < DEPOSITORS; d++) {
    const keypair = Keypair.generate();
    const address = keypair.publicKey.toBase58();
    await net.validator.airdrop(address, 1_000 * SOL);
    await net.validator.mintTo(address, USDC, BigInt(n));
    const key = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, keypair.secretKey.subarray(0, 32)]), format: "der", type: "pkcs8" });
    const template = depositInstruction({ programId, depositor: address, mint: USDC, precommitment: new Uint8Array(32), amount: 1n, nonce: 0n, hasher });
    depositors.push({ keypair, address, key, keys: template.keys, nextNonce: 0n });
  }
  const program = new PublicKey(programId);
  const stats: MakeStats = { totalMs: 0, buildMs: 0, signMs: 0, sendMs: 0, waitMs: 0, ledgerMs: 0, txs: 0, wireBytes: 0, lastSignature: "" };
  const busy = ledgerBusy(net);
  const t0 = performance.now();
  try {
    let next = 0;
    let wave = 0;
    while (next < n) {
      const { blockhash } = await connection.getLatestBlockhash("confirmed");
      const signatures: string[] = [];
      for (let k = 0; k < WAVE_TXS && next < n; k++) {
        const d = depositors[stats.txs % DEPOSITORS]!;
        let t = performance.now();
        const tx = new Transaction({ feePayer: d.keypair.publicKey, recentBlockhash: blockhash });
        for (let j = 0; j < DEPOSITS_PER_TX && next < n; j++, next++) {
          const precommitment = precommitments.subarray(32 * next, 32 * next + 32);
          const commitment = leaves.subarray(32 * next, 32 * next + 32);
          const nonce = d.nextNonce++;
          const keys = d.keys.slice();
          keys[RECEIPT_KEY] = { ...keys[RECEIPT_KEY]!, pubkey: new PublicKey(depositReceiptAddress(programId, USDC, d.address, nonce)) };
          keys[MARKER_KEY] = { ...keys[MARKER_KEY]!, pubkey: new PublicKey(commitmentMarkerAddress(programId, USDC, commitment)) };
          tx.add(
            new TransactionInstruction({
              programId: program,
              keys,
              data: Buffer.from(encodePoolInstruction({ name: "deposit", precommitment, amount: 1n, nonce })),
            }),
          );
        }
        const message = tx.serializeMessage();
        stats.buildMs += performance.now() - t;
        t = performance.now();
        const { wire, signature } = signedWire(message, d.key);
        stats.signMs += performance.now() - t;
        if (wire.length > PACKET_DATA_SIZE) throw new Error(`a deposit transaction is ${wire.length} bytes, over ${PACKET_DATA_SIZE}`);
        t = performance.now();
        const sent = await connection.sendRawTransaction(wire, { skipPreflight: true, maxRetries: 0 });
        stats.sendMs += performance.now() - t;
        if (sent !== signature) throw new Error(`the RPC answered signature ${sent}, expected ${signature}`);
        signatures.push(signature);
        stats.txs++;
        stats.wireBytes += wire.length;
      }
      // The validator processes in arrival order: once the last one has a status, the whole wave has.
      const t = performance.now();
      const last = signatures[signatures.length - 1]!;
      const deadline = Date.now() + 30_000;
      while (!(await connection.getSignatureStatuses([last])).value[0]) {
        // A wave slower than the blockhash's life is dropped (BlockhashNotFound): say so rather than wait forever.
        if (Date.now() > deadline) throw new Error(`deposit transaction ${last} has no status 30 s after it was sent (blockhash expired under load?)`);
        await new Promise((r) => setTimeout(r, 5));
      }
      for (let k = 0; k < signatures.length; k += 256) {
        const statuses = (await connection.getSignatureStatuses(signatures.slice(k, k + 256))).value;
        statuses.forEach((s, i) => {
          if (!s) throw new Error(`deposit transaction ${signatures[k + i]} did not land`);
          if (s.err) throw new Error(`deposit transaction ${signatures[k + i]} failed: ${JSON.stringify(s.err)}`);
        });
      }
      stats.waitMs += performance.now() - t;
      stats.lastSignature = last;
      if (++wave % 10 === 0) log(`${fmtNum(next)} / ${fmtNum(n)} deposits landed (${fmtNum((performance.now() - t0) / 1000, 1)} s)`);
    }
    const t = performance.now();
    for (;;) {
      const s = (await connection.getSignatureStatuses([stats.lastSignature])).value[0];
      if (s?.confirmationStatus === "confirmed" || s?.confirmationStatus === "finalized") break;
      if (performance.now() - t > 30_000) throw new Error(`the last deposit transaction is not confirmed 30 s after landing`);
      await new Promise((r) => setTimeout(r, 10));
    }
    stats.waitMs += performance.now() - t;
  } finally {
    busy.restore();
  }
  stats.totalMs = performance.now() - t0;
  stats.ledgerMs = busy.ms();
  return stats;
}

async function chainTree(net: Localnet): Promise<{ root: string; nextIndex: number }> {
  const info = await net.connection.getAccountInfo(new PublicKey(poolTreeAddress(net.programId, USDC)), "confirmed");
  if (!info) throw new Error("no tree account");
  const t = decodeTreeAccount(new Uint8Array(info.data));
  if (!t.ok) throw new Error(t.error);
  return { root: toHex(currentRoot(t.value)), nextIndex: t.value.nextIndex };
}

async function getMerkle(url: string): Promise<{ root: string; nextIndex: number } | null> {
  const res = await fetch(`${url}/get_merkle/${USDC}/32/mainnet`, { method: "POST" });
  if (res.status !== 200) {
    await res.text();
    return null;
  }
  const body = (await res.json()) as { json: { root: number[]; nextIndex: number } };
  return { root: toHex(Uint8Array.from(body.json.root)), nextIndex: body.json.nextIndex };
}

/** Log lines of a relay start: the indexer starts right after the console line and the relay listens once it caught up. */
interface StartPhases {
  readyMs: number;
  /** "console: operator token ..." (the last line before indexer.start). */
  consoleAt: number | null;
  /** console line -> listening: indexer.start (pool listing, backfill, root check), follower.start, HTTP app. */
  catchUpMs: number | null;
  /** CPU of the relay process up to listening. */
  cpuMs: number | null;
}

function phases(relay: ListeningProcess, cpuMs: number | null): StartPhases {
  const consoleAt = relay.lines.find((l) => /^console: operator token /.test(logMessage(l.text)))?.atMs ?? null;
  return { readyMs: relay.readyMs, consoleAt, catchUpMs: consoleAt === null ? null : relay.readyMs - consoleAt, cpuMs };
}

const backfill: BenchCase = {
  name: "backfill",
  title: "Indexer backfill of deposits from chain history",
  async run({ quick, log }) {
    const n = quick ? 1_000 : 10_000;
    // Protocol v2: depositors send precommitments; the program computes each leaf from the amount (1 unit).
    const precommitments = makeLeaves(n, 41);
    const hasher = await createFastPoseidonHasher();
    const leaves = new Uint8Array(32 * n);
    for (let i = 0; i < n; i++) leaves.set(depositCommitment(hasher, precommitments.subarray(32 * i, 32 * i + 32), 1n, USDC)!, 32 * i);

    log(`starting the local validator (slot ${SLOT_MS} ms) with the pool program`);
    const net = await startLocalnet({ pools: [USDC], slotMs: SLOT_MS });
    const dirs: string[] = [];
    let relay: ListeningProcess | null = null;
    try {
      const configFile = path.join(net.dir, "relay.json");
      writeFileSync(configFile, JSON.stringify(solanaRelayConfig(net)));
      const env = (): Record<string, string> => {
        const dir = tempDir("backfill");
        dirs.push(dir);
        return { RELAY_CONFIG: configFile, RELAY_DATA_DIR: dir, RELAY_OPERATOR_TOKEN: "bench-backfill-operator-token" };
      };

      // Baseline in the same run: the same relay start on the same validator while the pool is still empty.
      log("baseline: a relay bound to the validator while the pool is empty");
      relay = await startRelayChild(env());
      const empty = phases(relay, procCpuMs(relay.pid));
      await relay.stop();
      relay = null;

      log(`making ${fmtNum(n)} deposits: ${DEPOSITS_PER_TX} per transaction, ${DEPOSITORS} depositors, waves of ${WAVE_TXS} transactions per blockhash`);
      const cpu0 = process.cpuUsage();
      const made = await makeDeposits(net, precommitments, leaves, hasher, log);
      const makeCpu = process.cpuUsage(cpu0);
      const onChain = await chainTree(net);
      if (onChain.nextIndex !== n) throw new Error(`the tree account holds ${onChain.nextIndex} leaves, expected ${n}`);
      log(`made in ${fmtNum(made.totalMs / 1000, 1)} s (${fmtNum(rate(n, made.totalMs))} deposits/s)`);
      gc();

      // Peer: the same leaves in the same (chain) order, in memory.
      log(`peer: fixed-merkle-tree bulk build of the same ${fmtNum(n)} leaves`);
      const hashFunction = await fmtPoseidonHash();
      const decimals = Array.from({ length: n }, (_, i) => toDecimal(leaves, 32 * i));
      new FixedMerkleTree(32, decimals.slice(0, 500), { hashFunction, zeroElement: 0 });
      let t = performance.now();
      const fmt = new FixedMerkleTree(32, decimals, { hashFunction, zeroElement: 0 });
      const peerMs = performance.now() - t;
      const peerRoot = BigInt(fmt.root).toString(16).padStart(64, "0");
      if (peerRoot !== onChain.root) throw new Error(`fixed-merkle-tree root ${peerRoot} differs from the on-chain root ${onChain.root}`);
      gc();

      // Ours: a relay child with an empty data dir backfills the pool from the validator's history.
      log("starting a relay bound to the validator, empty data dir");
      const validatorCpu0 = process.cpuUsage();
      t = performance.now();
      relay = await startRelayChild(env());
      const full = phases(relay, procCpuMs(relay.pid));
      let seen = await getMerkle(relay.url);
      while (!seen || seen.nextIndex < n) {
        await new Promise((r) => setTimeout(r, 10));
        seen = await getMerkle(relay.url);
      }
      const visibleMs = performance.now() - t;
      const validatorCpu = process.cpuUsage(validatorCpu0);
      if (seen.nextIndex !== n) throw new Error(`the relay reports nextIndex ${seen.nextIndex}, expected ${n}`);
      if (seen.root !== onChain.root) throw new Error(`the relay's root ${seen.root} differs from the on-chain root ${onChain.root}`);

      const peerRate = rate(n, peerMs);
      const cpu = (u: NodeJS.CpuUsage): number => (u.user + u.system) / 1000;
      const ms = (x: number | null): string => (x === null ? "n/a" : fmtNum(x));
      const metrics: Metric[] = [
        {
          name: `backfill ${fmtNum(n)} deposits from chain history (relay spawn -> get_merkle nextIndex ${fmtNum(n)})`,
          ours: rate(n, visibleMs),
          unit: "deposits/s",
          peerLabel: "fixed-merkle-tree bulk build of the same leaves",
          peer: peerRate,
          better: "higher",
          target: null,
          detail: `${fmtNum(visibleMs)} ms vs ${fmtNum(peerMs)} ms; ${made.txs} transactions; root = on-chain TreeAccount root`,
        },
      ];
      if (full.catchUpMs !== null) {
        metrics.push({
          name: `backfill ${fmtNum(n)} deposits inside the relay (indexer start -> listening)`,
          ours: rate(n, full.catchUpMs),
          unit: "deposits/s",
          peerLabel: "fixed-merkle-tree bulk build of the same leaves",
          peer: peerRate,
          better: "higher",
          target: null,
          detail: `${fmtNum(full.catchUpMs)} ms from the relay's log lines; ${ms(empty.catchUpMs)} ms with the pool empty`,
        });
      }
      metrics.push({
        name: `making ${fmtNum(n)} deposits on the local validator (${DEPOSITS_PER_TX} per transaction)`,
        ours: rate(n, made.totalMs),
        unit: "deposits/s",
        peerLabel: "the relay's backfill of them",
        peer: rate(n, visibleMs),
        better: "higher",
        target: null,
        detail: `${fmtNum(made.totalMs / 1000, 1)} s for ${made.txs} transactions, mean ${fmtNum(made.wireBytes / made.txs)} bytes each`,
      });
      return {
        metrics,
        notes: [
          `validator: src-localnet in the bench process, slot ${SLOT_MS} ms, SBF pool program (programs/pool/pool.so) in LiteSVM; deposits of 1 base unit, ${DEPOSITORS} depositors, sent one after another with skipPreflight, ${WAVE_TXS} transactions per blockhash`,
          `making the deposits: validator ledger busy ${fmtNum(made.ledgerMs)} ms (${fmtNum(made.ledgerMs / n, 2)} ms per deposit); client build ${fmtNum(made.buildMs)} ms (receipt + marker PDAs, message compile), sign ${fmtNum(made.signMs)} ms (node:crypto), send ${fmtNum(made.sendMs)} ms, wait ${fmtNum(made.waitMs)} ms (send and wait include ledger time); bench process CPU ${fmtNum(cpu(makeCpu))} ms over ${fmtNum(made.totalMs)} ms wall`,
          `relay start with ${fmtNum(n)} deposits (ms since spawn): console line ${ms(full.consoleAt)}, listening ${fmtNum(full.readyMs)}, nextIndex ${fmtNum(n)} seen ${fmtNum(visibleMs)}; relay CPU to listening ${ms(full.cpuMs)} ms`,
          `same relay, pool empty (same run, before the deposits): console line ${ms(empty.consoleAt)}, listening ${fmtNum(empty.readyMs)}; relay CPU ${ms(empty.cpuMs)} ms; so the backfill adds ${ms(full.catchUpMs !== null && empty.catchUpMs !== null ? full.catchUpMs - empty.catchUpMs : null)} ms (${fmtNum(rate(n, (full.catchUpMs ?? NaN) - (empty.catchUpMs ?? NaN)))} deposits/s)`,
          `bench process CPU (validator answering the relay's RPC) from spawn to nextIndex ${fmtNum(n)}: ${fmtNum(cpu(validatorCpu))} ms`,
          `peer: new MerkleTree(32, leaves, { hashFunction: circomlibjs Poseidon, zeroElement: 0 }) in memory; its root equals the on-chain root and the relay's`,
        ],
      };
    } finally {
      await relay?.stop();
      await net.close();
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    }
  },
};

export default backfill;
