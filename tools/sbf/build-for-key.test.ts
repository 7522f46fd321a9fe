// npm run build:programs -- --vkey <file> --out <file>: the pool program built for a verifying key
// (a ceremony's), reproducibly, without touching the committed development build.

import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { SnarkjsVerificationKey } from "../../src-shared/zk/verification-key";
import { verifyingKeyFingerprint } from "../../src-shared/ceremony/fingerprint";
import { programElfHash } from "../../src-shared/ceremony/program-hash";
import { buildPoolForKey, runBuild } from "./build.js";
import { findClang, INSTALL_HINT } from "./compile.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const DEV_VKEY = path.join(ROOT, "resources/zk/verification_key.json");
const COMMITTED_SO = path.join(ROOT, "programs/pool/pool.so");
const COMMITTED_HEADER = path.join(ROOT, "programs/pool/src/verifying_key.h");
// Four pool builds of ~3 s each on a busy 2-core machine.
const SLOW = 120_000;

const clang = findClang();
if (!clang) console.warn(`SKIPPED tools/sbf/build-for-key.test.ts: clang not found (${INSTALL_HINT})`);

const sha256 = (b: Uint8Array): string => createHash("sha256").update(b).digest("hex");
const devKey = (): SnarkjsVerificationKey => JSON.parse(readFileSync(DEV_VKEY, "utf8")) as SnarkjsVerificationKey;

describe.skipIf(!clang)("build:programs --vkey", () => {
  let dir = "";
  let otherVkey = "";
  let logs: string[] = [];
  const quiet = (): void => {
    logs = [];
    vi.spyOn(console, "log").mockImplementation((...a: unknown[]) => void logs.push(a.join(" ")));
    vi.spyOn(console, "error").mockImplementation((...a: unknown[]) => void logs.push(a.join(" ")));
  };
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), "build-for-key-"));
    // Another key for the same circuit's shape: δ replaced by the G2 generator (γ's point). The
    // build only needs points in the base field; the program tests use a real ceremony key.
    const k = devKey();
    otherVkey = path.join(dir, "other.json");
    writeFileSync(otherVkey, JSON.stringify({ ...k, vk_delta_2: k.vk_gamma_2 }, null, 1) + "\n");
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(
    "builds the development key into exactly the committed pool.so, and leaves the committed header as it was",
    () => {
      const header = readFileSync(COMMITTED_HEADER);
      const b = buildPoolForKey({ vkey: { path: DEV_VKEY } });
      expect(Buffer.from(b.so).equals(readFileSync(COMMITTED_SO))).toBe(true);
      expect(b.fingerprint).toBe(verifyingKeyFingerprint(devKey()));
      expect(b.vkeySha256).toBe(sha256(readFileSync(DEV_VKEY)));
      expect(readFileSync(COMMITTED_HEADER).equals(header)).toBe(true);
    },
    SLOW,
  );

  it(
    "gives the same bytes for the same key (from its file or as an object) and other bytes for another key",
    () => {
      const first = buildPoolForKey({ vkey: { path: otherVkey } });
      const again = buildPoolForKey({ vkey: JSON.parse(readFileSync(otherVkey, "utf8")) as SnarkjsVerificationKey });
      expect(Buffer.from(again.so).equals(Buffer.from(first.so))).toBe(true);
      expect(again.programElfHash).toBe(first.programElfHash);
      expect(Buffer.from(first.so).equals(readFileSync(COMMITTED_SO))).toBe(false);
      expect(first.so.length).toBe(readFileSync(COMMITTED_SO).length); // only the key's bytes differ
      expect(first.fingerprint).not.toBe(verifyingKeyFingerprint(devKey()));
      expect(first.programElfHash).toBe(programElfHash(first.so));
    },
    SLOW,
  );

  it(
    "writes --out, printing the key's fingerprint and the program's hash; --check passes on that file and fails on another",
    () => {
      const out = path.join(dir, "nested", "pool.so");
      quiet();
      expect(runBuild(["--vkey", otherVkey, "--out", out])).toBe(0);
      const so = readFileSync(out);
      const fingerprint = verifyingKeyFingerprint(JSON.parse(readFileSync(otherVkey, "utf8")) as unknown)!;
      expect(logs.join("\n")).toContain(`fingerprint ${fingerprint}`);
      expect(logs.join("\n")).toContain(`${out}: ${so.length} bytes sha256 ${sha256(so)} programElfHash ${programElfHash(so)}`);
      quiet();
      expect(runBuild(["--vkey", otherVkey, "--out", out, "--check"])).toBe(0);
      expect(logs.join("\n")).toMatch(/matches$/m);
      quiet();
      expect(runBuild(["--vkey", DEV_VKEY, "--out", out, "--check"])).toBe(1);
      expect(logs.join("\n")).toContain(`${out} is not the pool program built for ${DEV_VKEY}`);
      expect(readFileSync(out).equals(so)).toBe(true); // --check writes nothing
    },
    SLOW,
  );

  it("refuses --vkey without --out, --out onto the committed pool.so, program names beside --vkey, and a key that is not protocol v3's", () => {
    quiet();
    expect(runBuild(["--vkey", otherVkey])).toBe(2);
    expect(logs.join("\n")).toContain("--vkey and --out go together");
    quiet();
    expect(runBuild(["--vkey", otherVkey, "--out", "programs/pool/pool.so"])).toBe(2);
    expect(logs.join("\n")).toContain("the committed build stays on the development key");
    quiet();
    expect(runBuild(["--vkey", otherVkey, "--out", path.join(dir, "x.so"), "cp-swap"])).toBe(2);
    const v2 = path.join(dir, "v2.json");
    const k = devKey();
    writeFileSync(v2, JSON.stringify({ ...k, nPublic: 6, IC: k.IC.slice(0, 7) }));
    quiet();
    expect(runBuild(["--vkey", v2, "--out", path.join(dir, "v2.so")])).toBe(1);
    expect(logs.join("\n")).toMatch(/expected nPublic 7/);
  });

  it(
    "still rebuilds the committed programs/pool/pool.so byte for byte (--check)",
    () => {
      quiet();
      expect(runBuild(["--check", "pool"]), logs.join("\n")).toBe(0);
    },
    SLOW,
  );
});
