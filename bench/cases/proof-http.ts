import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import autocannon, { type Result } from "autocannon";
import { BENCH_MINT, BENCH_NETWORK, copyPool, preparedPool, tempDir } from "../lib/data";
import type { CaseResult, Metric } from "../lib/metric";
import { procCpuMs, procMemoryMb, spawnListening, startRelayChild, type ListeningProcess } from "../lib/proc";
import { fmtNum, median } from "../lib/stats";
import type { BenchCase } from "../lib/bench-case";

const CONNECTIONS = 50;
const COLD_LEAVES = 2_000;

type Load = (url: string, seconds: number, reqs?: { method: string; path: string }[]) => Promise<Result>;

/** The relay's first answer, checked for shape and against the pool's size: the body the peers answer with. */
async function firstAnswer(relayUrl: string, firstPath: string, n: number): Promise<string> {
  const first = await fetch(`${relayUrl}${firstPath}`, { method: "POST" });
  const body = await first.text();
  if (first.status !== 200) throw new Error(`get_proof answered ${first.status}: ${body.slice(0, 300)}`);
  const parsed = JSON.parse(body) as { json: { path: number[][]; indices: number[] } };
  if (parsed.json.path.length !== 32 || parsed.json.path[0]!.length !== 32 || parsed.json.indices.length !== 32) throw new Error("unexpected get_proof shape");
  const merkle = (await (await fetch(`${relayUrl}/get_merkle/${BENCH_MINT}/32/${BENCH_NETWORK}`, { method: "POST" })).json()) as {
    json: { nextIndex: number };
  };
  if (merkle.json.nextIndex !== n) throw new Error(`relay holds ${merkle.json.nextIndex} leaves, expected ${n}`);
  return body;
}

interface Rounds {
  ours: Result[];
  peer: Result[];
  oursCpu: number;
  peerCpu: number;
  relayMem: ReturnType<typeof procMemoryMb>;
}

/**
 * Interleaved rounds (ours, peer, peer, ours, ...): other work on the machine drifts over tens of seconds.
 * Server CPU (user + system) spent in the timed rounds: a per-request cost that other load skews far less than req/s.
 * Against bare express, and against the floor (Node's http server, no framework): on 2 cores autocannon
 * measures itself near the floor, so there only CPU per request can tell (target 5).
 */
async function interleavedRounds(load: Load, relay: ListeningProcess, bare: ListeningProcess, rounds: number, round: number): Promise<Rounds> {
  const ours: Result[] = [];
  const peer: Result[] = [];
  let oursCpu = 0;
  let peerCpu = 0;
  const cpuOf = async (pid: number, run: () => Promise<Result>): Promise<[Result, number]> => {
    const c0 = procCpuMs(pid);
    const r = await run();
    const c1 = procCpuMs(pid);
    return [r, c0 !== null && c1 !== null ? c1 - c0 : NaN];
  };
  let relayMem: ReturnType<typeof procMemoryMb> = null;
  for (let r = 0; r < rounds; r++) {
    for (const who of r % 2 ? ["peer", "ours"] : ["ours", "peer"]) {
      if (who === "ours") {
        const [r, ms] = await cpuOf(relay.pid, () => load(relay.url, round));
        ours.push(r);
        oursCpu += ms;
        relayMem ??= procMemoryMb(relay.pid);
      } else {
        const [r, ms] = await cpuOf(bare.pid, () => load(bare.url, round));
        peer.push(r);
        peerCpu += ms;
      }
    }
  }
  return { ours, peer, oursCpu, peerCpu, relayMem };
}

function refuseFailures(runs: (readonly [string, Result])[]): void {
  for (const [who, r] of runs) {
    if (r.non2xx || r.errors || r.timeouts) throw new Error(`${who}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);
  }
}

interface Measured extends Rounds {
  n: number;
  rounds: number;
  round: number;
  body: string;
  cold: Result;
  coldPeer: Result;
  /** The same rounds against bare node:http: `peer` is the floor. */
  floor: Rounds;
}

function report(m: Measured): CaseResult {
  const { n, rounds, round, body, ours, peer, oursCpu, peerCpu, relayMem, cold, coldPeer, floor } = m;
  const { ours: oursVsFloor, peer: floorRounds, oursCpu: oursVsFloorCpu, peerCpu: floorCpu } = floor;
  const total = (rs: Result[]): number => rs.reduce((a, r) => a + r.requests.total, 0);
  const seconds = (rs: Result[]): number => rs.reduce((a, r) => a + r.duration, 0);
  const perSec = (rs: Result[]): number => total(rs) / seconds(rs);
  const p99 = (rs: Result[]): number => median(rs.map((r) => r.latency.p99));
  const p50 = (rs: Result[]): number => median(rs.map((r) => r.latency.p50));
  const list = (rs: Result[], f: (r: Result) => number): string => rs.map((r) => fmtNum(f(r))).join("/");

  const metrics: Metric[] = [
    {
      name: `get_proof HTTP req/s (${fmtNum(n)} leaves, ${CONNECTIONS} conns)`,
      ours: perSec(ours),
      unit: "req/s",
      peerLabel: "bare express, same bytes",
      peer: perSec(peer),
      better: "higher",
      target: { kind: "ratio>=", value: 0.9 },
      detail: `${rounds} interleaved rounds of ${round} s each, ${fmtNum(total(ours))} vs ${fmtNum(total(peer))} requests; per round ${list(ours, (r) => r.requests.average)} vs ${list(peer, (r) => r.requests.average)}`,
    },
    {
      name: "get_proof HTTP p50 latency",
      ours: p50(ours),
      unit: "ms",
      peerLabel: "bare express",
      peer: p50(peer),
      better: "lower",
      target: null,
      detail: `median of the rounds' p50`,
    },
    {
      name: "get_proof HTTP p99 latency",
      ours: p99(ours),
      unit: "ms",
      peerLabel: "bare express",
      peer: p99(peer),
      better: "lower",
      target: { kind: "ratio<=", value: 1.1 },
      detail: `median of the rounds' p99: ${list(ours, (r) => r.latency.p99)} vs ${list(peer, (r) => r.latency.p99)} ms; max ${fmtNum(Math.max(...ours.map((r) => r.latency.max)))} vs ${fmtNum(Math.max(...peer.map((r) => r.latency.max)))} ms`,
    },
    {
      name: "get_proof HTTP req/s against the floor",
      ours: perSec(oursVsFloor),
      unit: "req/s",
      peerLabel: "bare node:http, same bytes",
      peer: perSec(floorRounds),
      better: "higher",
      target: null,
      detail: `${oursVsFloor.length} interleaved rounds of ${round} s; p99 ${list(oursVsFloor, (r) => r.latency.p99)} vs ${list(floorRounds, (r) => r.latency.p99)} ms; autocannon shares the machine's 2 cores, so near the floor both measure the client too`,
    },
    {
      name: "get_proof server CPU per request",
      ours: (oursVsFloorCpu * 1000) / total(oursVsFloor),
      unit: "µs",
      peerLabel: "bare node:http, same bytes",
      peer: (floorCpu * 1000) / total(floorRounds),
      better: "lower",
      target: { kind: "ratio<=", value: 1.3 },
      detail: `/proc user + system of each server process over the same interleaved rounds (${fmtNum(total(oursVsFloor))} vs ${fmtNum(total(floorRounds))} requests)`,
    },
  ];
  return {
    metrics,
    notes: [
      `pool: the cached prepared pool (batch append through SqlTreeStore into a data dir, then copied), not the sandbox path; the relay loads it at start like any persisted pool`,
      `relay: the server bundle npm start runs (out/server/main.js), RELAY_RATE_LIMITS=off, in its own process; autocannon runs in the bench process; 100 distinct leaf indices cycled`,
      `peer: bare Express 5 app, same route pattern, x-powered-by and ETag off like the relay, answering a precomputed ${fmtNum(body.length)}-byte body; the relay answers get_proof on Node's request event ahead of Express (src-server/http/front-door.ts), with its request log, Host check and rate limits`,
      `the relay keeps whole answers for up to 1,024 leaves until the tree grows; with ${fmtNum(COLD_LEAVES)} distinct leaves cycled every answer is built (cached node text only): ${fmtNum(cold.requests.average)} req/s, p99 ${fmtNum(cold.latency.p99)} ms, against bare express ${fmtNum(coldPeer.requests.average)} req/s, p99 ${fmtNum(coldPeer.latency.p99)} ms in the ${round} s after it = ${fmtNum(cold.requests.average / coldPeer.requests.average, 2)}x`,
      `server CPU per request in the timed rounds (/proc, user + system): relay ${fmtNum((oursCpu * 1000) / total(ours))} µs, bare express ${fmtNum((peerCpu * 1000) / total(peer))} µs, so the relay can serve at most ${fmtNum(peerCpu / total(peer) / (oursCpu / total(ours)), 2)}x the peer's requests on the same CPU`,
      `throughput: relay ${fmtNum(ours.reduce((a, r) => a + r.throughput.total, 0) / seconds(ours) / 2 ** 20, 1)} MiB/s, bare ${fmtNum(peer.reduce((a, r) => a + r.throughput.total, 0) / seconds(peer) / 2 ** 20, 1)} MiB/s; relay RSS under load ${relayMem ? `${fmtNum(relayMem.rss)} MB` : "n/a"}`,
    ],
  };
}

const proofHttp: BenchCase = {
  name: "proof-http",
  title: "get_proof over HTTP",
  async run({ quick, log }) {
    const n = quick ? 10_000 : 100_000;
    const rounds = quick ? 2 : 5;
    const round = quick ? 1 : 2;
    const warm = quick ? 1 : 3;
    const prepared = await preparedPool(n, log);
    const dataDir = copyPool(prepared.dir, "proof-http");
    const scratch = tempDir("proof-http-body");

    // 100 distinct leaves, cycled by every connection: answers differ per request as in real use.
    const paths = Array.from({ length: 100 }, (_, i) => `/get_proof/${BENCH_MINT}/32/${(i * 2654435761) % n}/${BENCH_NETWORK}`);
    const requests = paths.map((p) => ({ method: "POST", path: p }));
    // More distinct leaves than the relay keeps whole answers for (1,024): every answer is built.
    const coldRequests = Array.from({ length: COLD_LEAVES }, (_, i) => ({
      method: "POST",
      path: `/get_proof/${BENCH_MINT}/32/${(i * 40503 + 7) % n}/${BENCH_NETWORK}`,
    }));
    const load: Load = (url, seconds, reqs = requests) => autocannon({ url, connections: CONNECTIONS, duration: seconds, requests: reqs, timeout: 10 });

    let relay: ListeningProcess | null = null;
    let bare: ListeningProcess | null = null;
    let floor: ListeningProcess | null = null;
    try {
      log(`starting the relay (the server bundle) on a copy of the prepared ${fmtNum(n)}-leaf pool`);
      relay = await startRelayChild({ RELAY_DATA_DIR: dataDir });
      // The relay logs a line per request; read and drop them, so collecting them does not load the process running autocannon.
      for (const stream of [relay.child.stdout, relay.child.stderr]) {
        stream?.removeAllListeners("data");
        stream?.resume();
      }
      const body = await firstAnswer(relay.url, paths[0]!, n);

      const bodyFile = path.join(scratch, "body.json");
      writeFileSync(bodyFile, body);
      bare = await spawnListening(["--import", "tsx", "bench/servers/bare-express.ts"], { BENCH_BODY_FILE: bodyFile });
      floor = await spawnListening(["--import", "tsx", "bench/servers/bare-node.ts"], { BENCH_BODY_FILE: bodyFile });

      log(`warm-up ${warm} s each, then ${rounds} interleaved rounds of ${round} s each at ${CONNECTIONS} connections`);
      await load(relay.url, warm);
      await load(bare.url, warm);
      await load(floor.url, warm);
      const timed = await interleavedRounds(load, relay, bare, rounds, round);
      const cold = await load(relay.url, round, coldRequests);
      const coldPeer = await load(bare.url, round);
      const againstFloor = await interleavedRounds(load, relay, floor, rounds, round);
      refuseFailures([
        ...timed.ours.map((x) => ["relay", x] as const),
        ...timed.peer.map((x) => ["bare express", x] as const),
        ["relay (cold)", cold] as const,
        ["bare express", coldPeer] as const,
        ...againstFloor.ours.map((x) => ["relay", x] as const),
        ...againstFloor.peer.map((x) => ["bare node:http", x] as const),
      ]);
      return report({ n, rounds, round, body, ...timed, cold, coldPeer, floor: againstFloor });
    } finally {
      await relay?.stop();
      await bare?.stop();
      await floor?.stop();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(scratch, { recursive: true, force: true });
    }
  },
};

export default proofHttp;
