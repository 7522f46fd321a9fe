// The SBF programs (programs/<name>/src/*.c) are built with Debian's clang (npm run build:programs);
// install clang, lld and llvm when clang is missing.
import { execSync, spawnSync } from "node:child_process";

const hasClang = spawnSync("clang", ["--version"], { stdio: "ignore" }).status === 0;
if (!hasClang) {
  const root = typeof process.getuid === "function" && process.getuid() === 0;
  if (root) {
    console.log("installing Debian clang for the SBF programs (apt-get install -y clang lld llvm)");
    execSync("apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang lld llvm", { stdio: "inherit" });
  } else {
    console.error("the SBF programs need clang: run `sudo apt-get install -y clang lld llvm`");
    process.exit(1);
  }
}
