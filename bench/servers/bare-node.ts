/**
 * The floor for the HTTP get_proof benchmark: Node's own http server, no
 * framework, answering a precomputed body (BENCH_BODY_FILE) on the same route
 * with the same status and headers the relay sends, so both send the same
 * bytes. The relay's front door (src-server/http/front-door.ts) is measured
 * against it as well as against bare Express.
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:http";

const body = readFileSync(process.env.BENCH_BODY_FILE!);
const server = createServer((req, res) => {
  if (req.method === "POST" && req.url?.startsWith("/get_proof/")) {
    res.writeHead(200, { "Content-Type": "application/json; charset=utf-8", "Content-Length": body.length });
    res.end(body);
    return;
  }
  res.writeHead(404).end();
});
server.listen(0, "127.0.0.1", () => {
  const addr = server.address() as { port: number };
  console.log(`bare node:http listening on http://127.0.0.1:${addr.port}`);
});
process.once("SIGTERM", () => server.close(() => process.exit(0)));
