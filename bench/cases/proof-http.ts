import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import autocannon, { type Result } from "autocannon";
import { BENCH_MINT, BENCH_NETWORK, copyPool, preparedPool, tempDir } from "../lib/data";
import type { Metric } from "../lib/metric";
import { procMemoryMb, spawnListening, startRelayChild, type ListeningProcess } from "../lib/proc";
import { fmtNum } from "../lib/stats";
import type { BenchCase } from "./index";

const CONNECTIONS = 50;

const proofHttp: BenchCase = {
  name: "proof-http",
  title: "get_proof over HTTP",
  async run({ quick, log }) {
    const n = quick ? 10_000 : 100_000;
    const duration = quick ? 2 : 10;
    const warm = quick ? 1 : 3;
    const prepared = await preparedPool(n, log);
    const dataDir = copyPool(prepared.dir, "proof-http");
    const scratch = tempDir("proof-http-body");

    // 100 distinct leaves, cycled by every connection: answers differ per request as in real use.
    const paths = Array.from({ length: 100 }, (_, i) => `/get_proof/${BENCH_MINT}/32/${(i * 2654435761) % n}/${BENCH_NETWORK}`);
    const requests = paths.map((p) => ({ method: "POST", path: p }));
    const load = (url: string, seconds: number): Promise<Result> => autocannon({ url, connections: CONNECTIONS, duration: seconds, requests, timeout: 10 });

    let relay: ListeningProcess | null = null;
    let bare: ListeningProcess | null = null;
    try {
      log(`starting the relay (startServer) on a copy of the prepared ${fmtNum(n)}-leaf pool`);
      relay = await startRelayChild({ RELAY_DATA_DIR: dataDir });
      const first = await fetch(`${relay.url}${paths[0]}`, { method: "POST" });
      const body = await first.text();
      if (first.status !== 200) throw new Error(`get_proof answered ${first.status}: ${body.slice(0, 300)}`);
      const parsed = JSON.parse(body) as { json: { path: number[][]; indices: number[] } };
      if (parsed.json.path.length !== 32 || parsed.json.path[0]!.length !== 32 || parsed.json.indices.length !== 32) throw new Error("unexpected get_proof shape");
      const merkle = (await (await fetch(`${relay.url}/get_merkle/${BENCH_MINT}/32/${BENCH_NETWORK}`, { method: "POST" })).json()) as { json: { nextIndex: number } };
      if (merkle.json.nextIndex !== n) throw new Error(`relay holds ${merkle.json.nextIndex} leaves, expected ${n}`);

      const bodyFile = path.join(scratch, "body.json");
      writeFileSync(bodyFile, body);
      bare = await spawnListening(["--import", "tsx", "bench/servers/bare-express.ts"], { BENCH_BODY_FILE: bodyFile });

      log(`warm-up ${warm} s each, then ${duration} s each at ${CONNECTIONS} connections`);
      await load(relay.url, warm);
      await load(bare.url, warm);
      const ours = await load(relay.url, duration);
      const relayMem = procMemoryMb(relay.pid);
      const peer = await load(bare.url, duration);
      for (const [who, r] of [["relay", ours], ["bare express", peer]] as const) {
        if (r.non2xx || r.errors || r.timeouts) throw new Error(`${who}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);
      }

      const metrics: Metric[] = [
        {
          name: `get_proof HTTP req/s (${fmtNum(n)} leaves, ${CONNECTIONS} conns)`,
          ours: ours.requests.average,
          unit: "req/s",
          peerLabel: "bare express, same bytes",
          peer: peer.requests.average,
          better: "higher",
          target: { kind: "ratio>=", value: 0.8 },
          detail: `${duration} s each, ${fmtNum(ours.requests.total)} vs ${fmtNum(peer.requests.total)} requests`,
        },
        {
          name: "get_proof HTTP p50 latency",
          ours: ours.latency.p50,
          unit: "ms",
          peerLabel: "bare express",
          peer: peer.latency.p50,
          better: "lower",
          target: null,
        },
        {
          name: "get_proof HTTP p99 latency",
          ours: ours.latency.p99,
          unit: "ms",
          peerLabel: "bare express",
          peer: peer.latency.p99,
          better: "lower",
          target: { kind: "<", value: 20 },
          detail: `max ${fmtNum(ours.latency.max)} vs ${fmtNum(peer.latency.max)} ms`,
        },
      ];
      return {
        metrics,
        notes: [
          `pool: the cached prepared pool (batch append through SqlTreeStore into a data dir, then copied), not the sandbox path; the relay loads it at start like any persisted pool`,
          `relay started by startServer(loadConfig(env)) with RELAY_RATE_LIMITS=off in its own process; autocannon runs in the bench process; 100 distinct leaf indices cycled`,
          `peer: bare Express 5 app, same route pattern, x-powered-by and ETag off like the relay, answering a precomputed ${fmtNum(body.length)}-byte body`,
          `throughput: relay ${fmtNum(ours.throughput.average / 2 ** 20, 1)} MiB/s, bare ${fmtNum(peer.throughput.average / 2 ** 20, 1)} MiB/s; relay RSS under load ${relayMem ? `${fmtNum(relayMem.rss)} MB` : "n/a"}`,
        ],
      };
    } finally {
      await relay?.stop();
      await bare?.stop();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(scratch, { recursive: true, force: true });
    }
  },
};

export default proofHttp;
