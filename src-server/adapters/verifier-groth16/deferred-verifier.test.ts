import { describe, expect, it } from "vitest";
import type { QueuedProofVerifier } from "../../ports/proof-verifier";
import { deferredVerifier } from "./deferred-verifier";
import { VerifierClosedError } from "./worker-pool";

function fakePool(): QueuedProofVerifier & { closed: boolean } {
  const pool = {
    closed: false,
    pending: 0,
    verify: async () => true,
    close: async () => {
      pool.closed = true;
    },
  };
  return pool;
}

/** A deferred verifier over fake pools, and how many times it started one. */
function countingVerifier(): { v: ReturnType<typeof deferredVerifier>; starts: () => number } {
  let starts = 0;
  const v = deferredVerifier(
    async () => {
      starts++;
      return fakePool();
    },
    () => {},
  );
  return { v, starts: () => starts };
}

describe("deferredVerifier", () => {
  it("boots on the first proof if nothing booted it, and the proof waits for the pool", async () => {
    const { v, starts } = countingVerifier();
    expect(starts()).toBe(0);
    await expect(v.verify(new Uint8Array(256), [])).resolves.toBe(true);
    await v.boot();
    expect(starts()).toBe(1);
  });

  it("never starts once closed, and a boot after close is refused", async () => {
    const { v, starts } = countingVerifier();
    await v.close();
    await expect(v.boot()).rejects.toBeInstanceOf(VerifierClosedError);
    await expect(v.verify(new Uint8Array(256), [])).rejects.toBeInstanceOf(VerifierClosedError);
    expect(starts()).toBe(0);
  });

  it("closes a pool that is still booting once it is up", async () => {
    const pool = fakePool();
    let up: (p: QueuedProofVerifier) => void = () => {};
    const v = deferredVerifier(
      () => new Promise((resolve) => (up = resolve)),
      () => {},
    );
    const booting = v.boot();
    const closing = v.close();
    up(pool);
    await booting;
    await closing;
    expect(pool.closed).toBe(true);
  });

  it("logs a boot that fails and refuses proofs with its error", async () => {
    const lines: string[] = [];
    const v = deferredVerifier(
      () => Promise.reject(new Error("no mcl")),
      (l) => lines.push(l),
    );
    await expect(v.boot()).rejects.toThrow("no mcl");
    await expect(v.verify(new Uint8Array(256), [])).rejects.toThrow("no mcl");
    expect(lines).toEqual(["verifier: workers failed to start: no mcl; proofs are refused until restart"]);
    expect(v.status()).toEqual({ state: "failed", error: "no mcl" });
  });

  it("tells the health check whether its workers wait, boot, are ready or failed", async () => {
    let up!: (p: QueuedProofVerifier) => void;
    const v = deferredVerifier(
      () => new Promise<QueuedProofVerifier>((r) => (up = r)),
      () => {},
    );
    expect(v.status()).toEqual({ state: "waiting" });
    const booted = v.boot();
    expect(v.status()).toEqual({ state: "booting" });
    up(fakePool());
    await booted;
    expect(v.status()).toEqual({ state: "ready" });
  });
});
