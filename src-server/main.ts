import path from "node:path";
import { ConfigError, loadConfig } from "./config/load";
import { startServer, type RunningServer } from "./index";
import { StoreUnavailable } from "./ports/store-errors";
import { repoPath } from "./repo-path";

/** Headless entry: what `npm start` runs (README.md: Running it). */
async function main(): Promise<void> {
  const root = repoPath();
  let config;
  try {
    config = loadConfig(process.env, { defaultDataDir: path.join(root, "data") });
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
      process.exit(2);
    }
    throw e;
  }
  // Handlers go in before start: a supervisor may send SIGTERM the moment it sees `listening on`.
  let running: RunningServer | null = null;
  let exiting = false;
  const shutdown = (signal: string): void => {
    if (exiting) return;
    exiting = true;
    console.log(`${signal}: stopping`);
    const stopped = running ? running.stop() : Promise.resolve();
    stopped.then(
      () => {
        console.log("stopped; store flushed");
        process.exit(0);
      },
      (e: unknown) => {
        console.error(`stop failed: ${(e as Error).message}`);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));

  try {
    running = await startServer(config, { consoleDir: path.join(root, "out", "console") });
  } catch (e) {
    // A setting refused once files are read (the verifying key): exit 2 like every config error.
    if (e instanceof ConfigError) {
      console.error(e.message);
      process.exit(2);
    }
    // The database named by storage.url cannot be reached: one line naming host:port/db and the cause (never the URL).
    if (e instanceof StoreUnavailable) {
      console.error(`start failed: ${e.message}`);
      process.exit(1);
    }
    throw e;
  }
  if (exiting) {
    await running.stop();
    return;
  }
  console.log(`relay ${running.relay.meta.version} listening on ${running.url} (console: ${running.url}/console/)`);
}

main().catch((e: unknown) => {
  console.error(`start failed: ${(e as Error).stack ?? String(e)}`);
  process.exit(1);
});
