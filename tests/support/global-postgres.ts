/**
 * Vitest globalSetup: one PostgreSQL server for the whole run instead of one per test file
 * (issue 29, target 6: initdb and start-up cost 2–3 s a file). It starts lazily, on the first
 * file that asks (sharedPostgres() in tests/support/pg-stores.ts), so a run without PostgreSQL
 * tests, or `npx vitest run` of one such file, pays nothing for it. Files ask over a loopback
 * HTTP endpoint in vitest's main process, whose address is provided to the workers as
 * `sharedPostgres`; each file makes its own databases on the server and drops them at its end.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestProject } from "vitest/node";
import { startPostgres, type TestPostgres } from "./postgres";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let started: Promise<TestPostgres> | null = null;
  const http = createServer((req, res) => {
    // Room for two files at once, each with a few relays' pools (docs/scale-out.md's default
    // poolSize is 10) and the tests' own clients; the default 100 is a per-file server's.
    started ??= startPostgres({ maxConnections: 300 });
    started.then(
      (pg) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ host: pg.host, port: pg.port })),
      (e: unknown) => res.writeHead(500, { "content-type": "text/plain" }).end((e as Error).message),
    );
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  project.provide("sharedPostgres", `http://127.0.0.1:${(http.address() as AddressInfo).port}/`);
  return async () => {
    await new Promise<void>((resolve) => http.close(() => resolve()));
    if (started) await (await started.catch(() => null))?.stop();
  };
}
