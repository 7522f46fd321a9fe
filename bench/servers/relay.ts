/**
 * The relay for HTTP benchmarks: startServer() on loadConfig(process.env),
 * exactly what src-server/main.ts does minus the console. Server log lines go
 * to stderr; the `listening on` line to stdout. SIGTERM stops it gracefully.
 */
import { loadConfig } from "../../src-server/config/load";
import { startServer } from "../../src-server/index";

const running = await startServer(loadConfig(process.env), { log: (line) => process.stderr.write(`${line}\n`) });
console.log(`relay listening on ${running.url}`);
process.once("SIGTERM", () => {
  running.stop().then(
    () => process.exit(0),
    (e: unknown) => {
      console.error(`stop failed: ${(e as Error).message}`);
      process.exit(1);
    },
  );
});
