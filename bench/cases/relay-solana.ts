/**
 * /relay end to end against the local validator: the validator (src-localnet,
 * pool program, slot 50 ms) runs in this process, the relay in a child
 * process bound to it (RELAY_CONFIG: `mainnet` = solana, as operators run
 * it), real deposits and real proofs (tests/support/proofs.ts, cached by
 * witness). Peer in the same run and the same relay process: the same number
 * of sandbox relays on `devnet`, interleaved with the solana ones.
 * The breakdown comes from the relay's own records (GET /admin/relays/:id).
 */
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { AdminRelayDetail, AdminRelayPage, RelayStep } from "../../src-shared/api/admin";
import type { Network } from "../../src-shared/networks";
import { localnetTestChain, solanaRelayConfig, startLocalnet, type Localnet } from "../../tests/support/localnet";
import { prepareWithdrawal, testRecipient, type PreparedWithdrawal } from "../../tests/support/proofs";
import { airdrop, USDC } from "../../tests/support/sandbox";
import { newWallet } from "../../tests/support/wallet";
import { ROOT, tempDir } from "../lib/data";
import type { CaseResult, Metric } from "../lib/metric";
import { startRelayChild, type ListeningProcess } from "../lib/proc";
import { fmtNum, median } from "../lib/stats";
import type { BenchCase } from "../lib/bench-case";

const SLOT_MS = 50;
const AMOUNT = 1_000_000;
const OPERATOR_TOKEN = "bench-relay-solana-operator-token";
const CACHE_DIR = path.join(ROOT, "out", "bench", "proofs");

const percentile = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

interface Timed {
  network: Network;
  ms: number;
  signature: string;
}

/** Per relay, from its record: where the time between receipt and the confirmed step went. */
interface Breakdown {
  /** received -> submitted: checks, nullifier lookup, verification (verifyMs), the fsynced record. */
  beforeSubmitMs: number;
  verifyMs: number;
  /** submitted -> first attempt sent: ATA lookups, simulation, fee estimate, blockhash, attempt recorded. */
  preSendMs: number | null;
  /** The landing engine's send -> verdict, per attempt. */
  sendToVerdictMs: number | null;
  /** submitted -> confirmed. */
  submitToConfirmedMs: number;
  /** Client latency minus received -> confirmed: HTTP, parsing, answering. */
  outsideMs: number;
  /** Validator side, from its ledger events (same clock): send -> landed (processed, proof verified by the program) -> confirmed -> the engine's verdict. */
  sendToLandedMs: number | null;
  landedToConfirmedMs: number | null;
  confirmedToVerdictMs: number | null;
  broadcasts: number | null;
  attempts: number;
}

/** When each transaction landed and reached `confirmed` on the validator (Unix ms, like the relay's records). */
interface ChainTimes {
  landed: Map<string, number>;
  confirmed: Map<string, number>;
}

async function relayDetail(url: string, id: string): Promise<AdminRelayDetail> {
  const res = await fetch(`${url}/admin/relays/${id}`, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } });
  if (res.status !== 200) throw new Error(`GET /admin/relays/${id}: ${res.status} ${await res.text()}`);
  return (await res.json()) as AdminRelayDetail;
}

async function breakdowns(url: string, timed: Timed[], network: Network, chainTimes: ChainTimes): Promise<Breakdown[]> {
  const res = await fetch(`${url}/admin/relays?network=${network}&limit=200`, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } });
  if (res.status !== 200) throw new Error(`GET /admin/relays: ${res.status} ${await res.text()}`);
  const page = (await res.json()) as AdminRelayPage;
  const out: Breakdown[] = [];
  for (const t of timed.filter((x) => x.network === network)) {
    const item = page.items.find((i) => i.signature === t.signature);
    if (!item) throw new Error(`no relay record with signature ${t.signature}`);
    const d = await relayDetail(url, item.id);
    const step = (kind: RelayStep["kind"]): RelayStep => {
      const s = d.steps.find((x) => x.kind === kind);
      if (!s) throw new Error(`relay ${item.id} has no ${kind} step`);
      return s;
    };
    const received = step("received");
    const submitted = step("submitted");
    const confirmed = step("confirmed");
    const first = d.attempts[0];
    const last = d.attempts[d.attempts.length - 1];
    const landed = last ? (chainTimes.landed.get(last.signature) ?? null) : null;
    const conf = last ? (chainTimes.confirmed.get(last.signature) ?? null) : null;
    out.push({
      beforeSubmitMs: submitted.at - received.at,
      verifyMs: step("verified").verifyMs ?? NaN,
      preSendMs: first ? first.sentAt - submitted.at : null,
      sendToVerdictMs: last?.verdictAt != null ? last.verdictAt - last.sentAt : null,
      submitToConfirmedMs: confirmed.at - submitted.at,
      outsideMs: t.ms - (confirmed.at - received.at),
      sendToLandedMs: landed !== null && last ? landed - last.sentAt : null,
      landedToConfirmedMs: landed !== null && conf !== null ? conf - landed : null,
      confirmedToVerdictMs: conf !== null && last?.verdictAt != null ? last.verdictAt - conf : null,
      broadcasts: last ? last.broadcasts : null,
      attempts: d.attempts.length,
    });
  }
  return out;
}

type TestChain = ReturnType<typeof localnetTestChain>;
type Wallet = ReturnType<typeof newWallet>;

interface Prepared {
  solana: PreparedWithdrawal[];
  sandbox: PreparedWithdrawal[];
  prepareMs: number;
  proved: number;
}

/** count + 1 real withdrawals on each backend: solana deposits on the validator, sandbox deposits on devnet. */
async function prepareBoth(relayUrl: string, chain: TestChain, wallet: Wallet, count: number, log: (msg: string) => void): Promise<Prepared> {
  log(
    `preparing ${count + 1} + ${count + 1} real withdrawals (solana deposits on the validator, sandbox deposits on devnet; cached proofs are re-verified, not re-proved)`,
  );
  const solana: PreparedWithdrawal[] = [];
  const sandbox: PreparedWithdrawal[] = [];
  const p0 = performance.now();
  for (let i = 0; i <= count; i++) {
    solana.push(
      await prepareWithdrawal(relayUrl, wallet, USDC, {
        recipient: testRecipient(`bench-relay-solana-${i}`),
        amount: AMOUNT,
        seed: `bench-relay-solana-v1-${i}`,
        cacheDir: CACHE_DIR,
        chain,
      }),
    );
    sandbox.push(
      await prepareWithdrawal(relayUrl, wallet, USDC, {
        recipient: testRecipient(`bench-relay-solana-sandbox-${i}`),
        amount: AMOUNT,
        network: "devnet",
        seed: `bench-relay-solana-sandbox-v1-${i}`,
        cacheDir: CACHE_DIR,
      }),
    );
  }
  const prepareMs = performance.now() - p0;
  const proved = [...solana, ...sandbox].filter((p) => !p.cached).length;
  return { solana, sandbox, prepareMs, proved };
}

/** One warm-up relay each, then count of each one at a time, interleaved; the validator's landing and confirmation times. */
async function relayInterleaved(net: Localnet, relayUrl: string, { solana, sandbox }: Prepared, count: number, log: (msg: string) => void) {
  const relayPost = async (p: PreparedWithdrawal): Promise<Timed> => {
    const t = performance.now();
    const r = await fetch(`${relayUrl}/relay`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(p.body) });
    const body = (await r.json()) as { status: number; error?: string; message?: string; signature?: string };
    const ms = performance.now() - t;
    if (r.status !== 200 || !body.signature) throw new Error(`relay on ${p.body.network} answered ${r.status} ${body.error ?? ""} ${body.message ?? ""}`);
    return { network: p.body.network, ms, signature: body.signature };
  };

  const chainTimes: ChainTimes = { landed: new Map(), confirmed: new Map() };
  const offLanded = net.validator.ledger.on("transaction", (r) => chainTimes.landed.set(r.signature, Date.now()));
  const offConfirmed = net.validator.ledger.on("commitment", (level, r) => {
    if (level === "confirmed") chainTimes.confirmed.set(r.signature, Date.now());
  });
  log("warm-up: one relay each");
  await relayPost(solana[0]!);
  await relayPost(sandbox[0]!);
  log(`relaying ${count} solana and ${count} sandbox withdrawals one at a time, interleaved`);
  const timed: Timed[] = [];
  for (let i = 1; i <= count; i++) {
    // Alternate which goes first, so neither always follows the other.
    const pair = i % 2 ? [solana[i]!, sandbox[i]!] : [sandbox[i]!, solana[i]!];
    for (const p of pair) timed.push(await relayPost(p));
  }
  offLanded();
  offConfirmed();
  return { timed, chainTimes };
}

/** The latencies of both backends, and the solana relays' breakdown from their records and the validator's clock. */
async function report(
  relayUrl: string,
  count: number,
  config: ReturnType<typeof solanaRelayConfig>,
  prepared: Prepared,
  timed: Timed[],
  chainTimes: ChainTimes,
): Promise<CaseResult> {
  const { prepareMs, proved } = prepared;
  const sol = timed.filter((t) => t.network === "mainnet").map((t) => t.ms);
  const sbx = timed.filter((t) => t.network === "devnet").map((t) => t.ms);

  const solParts = await breakdowns(relayUrl, timed, "mainnet", chainTimes);
  const sbxParts = await breakdowns(relayUrl, timed, "devnet", chainTimes);
  const med = (xs: (number | null)[]): string => {
    const v = xs.filter((x): x is number => x !== null && Number.isFinite(x));
    return v.length ? fmtNum(median(v)) : "n/a";
  };
  const maxOf = (xs: (number | null)[]): number => Math.max(...xs.filter((x): x is number => x !== null));

  const detail = `${count} relays each, interleaved, one at a time; validator slot ${SLOT_MS} ms`;
  const metrics: Metric[] = [
    {
      name: `relay end-to-end p50 on solana (local validator, slot ${SLOT_MS} ms)`,
      ours: percentile(sol, 50),
      unit: "ms",
      peerLabel: "sandbox relay p50",
      peer: percentile(sbx, 50),
      better: "lower",
      target: null,
      detail,
    },
    {
      name: "relay end-to-end p99 on solana",
      ours: percentile(sol, 99),
      unit: "ms",
      peerLabel: "sandbox relay p99",
      peer: percentile(sbx, 99),
      better: "lower",
      target: null,
      detail: `p99 of ${count} is the slowest`,
    },
    {
      name: "relay end-to-end mean on solana",
      ours: mean(sol),
      unit: "ms",
      peerLabel: "sandbox relay mean",
      peer: mean(sbx),
      better: "lower",
      target: null,
      detail: `min ${fmtNum(Math.min(...sol))} vs ${fmtNum(Math.min(...sbx))} ms`,
    },
  ];
  const solanaCfg = config.networks as { mainnet: { solana: { pollMs: number; rebroadcastMs: number } } };
  return {
    metrics,
    notes: [
      `relay: a child process (the server bundle npm start runs, out/server/main.js) with RELAY_CONFIG binding mainnet to the validator (tests/support/localnet solanaRelayConfig: rebroadcastMs ${solanaCfg.mainnet.solana.rebroadcastMs}, follower pollMs ${solanaCfg.mainnet.solana.pollMs}, allowLoss), devnet the embedded sandbox; x-api-auth off, rate limits off`,
      `validator: in the bench process, slot ${SLOT_MS} ms, confirmed 1 slot after landing; its pool program verifies each proof twice (the relay's simulation and the transaction itself) on its own Groth16 worker`,
      `solana breakdown (medians, from GET /admin/relays/:id): received -> submitted ${med(solParts.map((b) => b.beforeSubmitMs))} ms (verification ${med(solParts.map((b) => b.verifyMs))} ms); submitted -> first send ${med(solParts.map((b) => b.preSendMs))} ms (ATA lookups, simulation, fee estimate, blockhash, attempt recorded); landing engine send -> verdict ${med(solParts.map((b) => b.sendToVerdictMs))} ms (max ${fmtNum(maxOf(solParts.map((b) => b.sendToVerdictMs)))}); submitted -> confirmed ${med(solParts.map((b) => b.submitToConfirmedMs))} ms; outside the record (HTTP) ${med(solParts.map((b) => b.outsideMs))} ms`,
      `solana, the landing engine's send -> verdict on the validator's clock (medians): send -> landed ${med(solParts.map((b) => b.sendToLandedMs))} ms (queue, program, proof verification), landed -> confirmed ${med(solParts.map((b) => b.landedToConfirmedMs))} ms (the next slot), confirmed -> the engine's verdict ${med(solParts.map((b) => b.confirmedToVerdictMs))} ms (its status poll)`,
      `solana attempts: ${solParts.map((b) => b.attempts).join(",")} per relay; broadcasts per landed attempt: ${solParts.map((b) => b.broadcasts ?? "-").join(",")}`,
      `sandbox breakdown (medians): received -> submitted ${med(sbxParts.map((b) => b.beforeSubmitMs))} ms (verification ${med(sbxParts.map((b) => b.verifyMs))} ms); submitted -> confirmed ${med(sbxParts.map((b) => b.submitToConfirmedMs))} ms; outside the record ${med(sbxParts.map((b) => b.outsideMs))} ms`,
      proved
        ? `${proved} of ${2 * (count + 1)} proofs were made this run (preparing took ${fmtNum(prepareMs / 1000, 1)} s); later runs take them from out/bench/proofs`
        : `every proof came from the cache (out/bench/proofs); preparing ${2 * (count + 1)} withdrawals (deposits, Merkle paths, cached proofs re-verified) took ${fmtNum(prepareMs / 1000, 1)} s`,
    ],
  };
}

const relaySolana: BenchCase = {
  name: "relay-solana",
  title: "/relay end to end against the local validator",
  async run({ quick, log }) {
    const count = quick ? 3 : 20;
    log(`starting the local validator (slot ${SLOT_MS} ms) with the pool program`);
    const net: Localnet = await startLocalnet({ slotMs: SLOT_MS });
    const dataDir = tempDir("relay-solana");
    let relay: ListeningProcess | null = null;
    try {
      const configFile = path.join(net.dir, "relay.json");
      const config = solanaRelayConfig(net);
      writeFileSync(configFile, JSON.stringify(config));
      relay = await startRelayChild({
        RELAY_CONFIG: configFile,
        RELAY_DATA_DIR: dataDir,
        RELAY_REQUIRE_RELAY_AUTH: "off",
        RELAY_OPERATOR_TOKEN: OPERATOR_TOKEN,
      });
      const chain = localnetTestChain(net, relay.url);
      const wallet = newWallet();
      // One extra withdrawal per backend warms the path up (connections, JIT, first ATA) and is not timed.
      await chain.fund(wallet, (count + 1) * AMOUNT, USDC);
      await airdrop(relay.url, wallet, (count + 1) * AMOUNT, USDC, "devnet");

      const prepared = await prepareBoth(relay.url, chain, wallet, count, log);
      const { timed, chainTimes } = await relayInterleaved(net, relay.url, prepared, count, log);
      return await report(relay.url, count, config, prepared, timed, chainTimes);
    } finally {
      await relay?.stop();
      await net.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
};

export default relaySolana;
