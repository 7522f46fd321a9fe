/**
 * The peer for the HTTP get_proof benchmark: a bare Express 5 app with the
 * same route shape answering a precomputed body (BENCH_BODY_FILE) with the
 * same status, content type and header settings as the relay (no x-powered-by,
 * no ETag), so both send the same bytes.
 */
import { readFileSync } from "node:fs";
import express from "express";

const body = readFileSync(process.env.BENCH_BODY_FILE!, "utf8");
const app = express();
app.disable("x-powered-by");
app.set("etag", false);
app.post("/get_proof/:mint/:depth/:index/:network", (_req, res) => {
  res.status(200).type("application/json").send(body);
});
const server = app.listen(0, "127.0.0.1", () => {
  const addr = server.address() as { port: number };
  console.log(`bare express listening on http://127.0.0.1:${addr.port}`);
});
process.once("SIGTERM", () => server.close(() => process.exit(0)));
