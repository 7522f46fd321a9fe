/**
 * Layer rules checked in CI (npm run lint:layers). Inside src-server the arrows point inward only:
 * composition → http → services → ports → core/config → src-shared, and adapters → ports/core; no
 * production folder but src-main imports src-server; production code never imports tests or the
 * test validator.
 */
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
      name: "browser-never-loads-node-shared",
      comment:
        "src-shared/node (keypair files, node:crypto ed25519) is node-only and left out of tsconfig.web.json: the console and the preload's typed API never import it.",
      severity: "error",
      from: { path: ["^src-renderer/", "^src-preload/api\\.ts$"] },
      to: { path: "^src-shared/node/" },
    },
    {
      name: "ports-are-interfaces",
      comment:
        "src-server/ports holds the interfaces adapters implement and the types they exchange with services; it imports only other ports, the core and src-shared, never an adapter, a service or a package.",
      severity: "error",
      from: { path: "^src-server/ports/" },
      to: { pathNot: ["^src-server/ports/", "^src-server/core/", "^src-shared/"] },
    },
    {
      name: "config-is-read-first",
      comment: "src-server/config is decoded before anything is built: it imports only config, core and src-shared, never what it configures.",
      severity: "error",
      from: { path: "^src-server/config/" },
      to: { path: "^src-server/(ports|adapters|services|http|composition|admin)/" },
    },
    {
      name: "services-use-ports",
      comment:
        "Use cases reach storage, chains, keys and clocks through src-server/ports, filled by composition; they import no adapter, no HTTP code and no composition (e.g. the signature check is the SignatureVerifier port, not the node:crypto adapter).",
      severity: "error",
      from: { path: "^src-server/services/" },
      to: { path: "^src-server/(adapters|http|composition)/" },
    },
    {
      name: "http-uses-no-adapters",
      comment:
        "Routes parse, call services and core, and map results to statuses; they reach no adapter (storage, chains, keys, metrics: composition hands them ports or services) and no composition.",
      severity: "error",
      from: { path: "^src-server/http/" },
      to: { path: "^src-server/(adapters|composition)/" },
    },
    {
      name: "adapters-point-inward",
      comment:
        "Adapters implement ports with the core's and src-shared's types; no arrow runs back up to services, HTTP or composition (types both sides share live in src-server/ports).",
      severity: "error",
      from: { path: "^src-server/adapters/" },
      to: { path: "^src-server/(services|http|composition|admin)/" },
    },
    {
      name: "server-stays-in-src-server",
      comment:
        "Only src-main (the Electron shell hosts the relay) imports src-server. Code the local validator, the SDK, the console, scripts, tools or programs share with the relay lives in src-shared (node-only parts in src-shared/node). Test files are excluded in options; a programs/ test-support.ts file is test code too. bench/ is measuring tooling, not product: it times the server's own stores and verifier, so it is not cruised and may import src-server.",
      severity: "error",
      from: {
        path: "^(src-shared|src-client|src-renderer|src-preload|src-localnet|scripts|tools|programs)/",
        pathNot: "(^|/)test-support\\.ts$",
      },
      to: { path: "^src-server/" },
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
