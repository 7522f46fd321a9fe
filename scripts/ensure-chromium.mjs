// Browser tests need Debian's chromium at /usr/bin/chromium; Playwright's own download is not reachable here.
import { existsSync } from "node:fs";
import { execSync } from "node:child_process";

const CHROMIUM = "/usr/bin/chromium";
if (!existsSync(CHROMIUM)) {
  const root = typeof process.getuid === "function" && process.getuid() === 0;
  if (root) {
    console.log("installing Debian chromium for the browser tests (apt-get install -y chromium)");
    execSync("apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium", { stdio: "inherit" });
  } else {
    console.error(`browser tests need ${CHROMIUM}: run \`sudo apt-get install -y chromium\``);
    process.exit(1);
  }
}
