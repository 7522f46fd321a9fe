/**
 * The relay for HTTP benchmarks: startServer() on loadConfig(process.env),
 * exactly what src-server/main.ts does minus the console, logging as it does
 * (JSON lines to stdout and the data dir's relay.log); the `listening on`
 * line on stdout too. SIGTERM stops it gracefully.
 */
import { loadConfig } from "../../src-server/config/load";
import { startServer } from "../../src-server/index";

const running = await startServer(loadConfig(process.env));
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
