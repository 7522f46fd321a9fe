/** Layer rules checked in CI (npm run lint:layers): the domain core stays pure, production code never imports tests or the test validator. */
module.exports = {
  forbidden: [
    {
      name: "core-is-pure",
      comment: "src-server/core imports only core and src-shared: no express, electron, sql.js, fetch adapters or node I/O.",
      severity: "error",
      from: { path: "^src-server/core/" },
      to: { pathNot: ["^src-server/core/", "^src-shared/"] },
    },
    {
      name: "shared-is-shared",
      comment: "src-shared is used by server, renderer and client; it imports none of them.",
      severity: "error",
      from: { path: "^src-shared/" },
      to: { path: ["^src-server/", "^src-main/", "^src-renderer/", "^src-client/", "^src-preload/"] },
    },
    {
      name: "shared-runs-in-the-browser",
      comment:
        "src-shared outside src-shared/node runs in the console and the SDK too: no node I/O, and nothing from src-shared/node (the node-only part: keypair files, node:crypto ed25519, excluded from tsconfig.web.json).",
      severity: "error",
      from: { path: "^src-shared/", pathNot: "^src-shared/node/" },
      to: { path: ["^(node:)?(fs|path|child_process|net|http|crypto)$", "^src-shared/node/"] },
    },
    {
      name: "renderer-talks-http-or-preload",
      comment: "The renderer never imports server, main or node code; it reaches the relay over HTTP and Electron through the preload bridge.",
      severity: "error",
      from: { path: "^src-renderer/" },
      to: { path: ["^src-server/", "^src-main/", "^src-client/", "^(node:)"] },
    },
    {
      name: "http-is-thin",
      comment: "Routes call services and core; they do not reach into storage adapters.",
      severity: "error",
      from: { path: "^src-server/http/" },
      to: { path: "^src-server/adapters/storage-sqljs/" },
    },
    {
      name: "product-never-runs-the-test-validator",
      comment: "src-localnet is a test and demo tool; the relay, console and client must reach a chain only over RPC.",
      severity: "error",
      from: { path: "^src-(server|shared|main|preload|renderer|client)/" },
      to: { path: "^src-localnet/" },
    },
    {
      name: "production-never-imports-tests",
      comment:
        "Test doubles, fixtures and oracles live in tests/ (tests/support, tests/oracle/localnet: the cp-swap model the C program is checked against); no source folder depends on them.",
      severity: "error",
      from: { path: "^src-" },
      to: { path: "^tests/" },
    },
    {
      name: "no-circular",
      severity: "error",
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.node.json" },
    exclude: { path: "\\.test\\.ts$" },
  },
};
