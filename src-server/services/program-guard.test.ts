import { PublicKey } from "@solana/web3.js";
import { Buffer } from "buffer";
import { afterEach, describe, expect, it } from "vitest";
import { programElfHash } from "../../src-shared/ceremony/program-hash";
import { BPF_LOADER_UPGRADEABLE_ID, encodeProgramDataHeader, programDataAddress } from "../../src-shared/pool-program";
import { BPF_LOADER_2_ID, readDeployedProgram, readProgramDataStamp } from "../adapters/chain-solana/program-data";
import type { SolanaRpc } from "../adapters/chain-solana/rpc";
import { ConfigError } from "../config/load";
import type { KeyExpectation } from "../config/verifying-key";
import { NotAProgramError, type DeployedProgram, type DeployedProgramSource, type ProgramDataStamp } from "../ports/deployed-program";
import { judgeProgram, ProgramGuard, type GuardedNetwork } from "./program-guard";

const PROGRAM_ID = "FJ5caa9BvE33vmuBc3zFN2JJFAvGHL8UjeQ2b8iBEqZJ";
const AUTHORITY = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";
const DEV_HASH = "d".repeat(64);
const CEREMONY_HASH = "c".repeat(64);

const development: KeyExpectation = { kind: "development", fingerprint: "f".repeat(64), programPath: "programs/pool/pool.so", programHash: DEV_HASH };
const ceremony: KeyExpectation = {
  kind: "ceremony",
  fingerprint: "e".repeat(64),
  transcriptPath: "/keys/ceremony.json",
  programHash: CEREMONY_HASH,
  ceremony: {
    contributions: 3,
    contributors: ["a", "b", "c"],
    phase1: "powersOfTau28_hez_final_16.ptau",
    beaconSlot: 10,
    beaconBlockSlot: 11,
    beaconBlockhash: "x",
    vkeyFingerprint: "e".repeat(64),
    programSha256: CEREMONY_HASH,
  },
};
const net = {
  network: "mainnet" as const,
  programId: PROGRAM_ID,
  allowDevelopmentVerifyingKey: false,
  production: false,
  trustedUpgradeAuthorities: [] as string[],
};
const deployed = (elfHash: string, upgradeAuthority: string | null = null): DeployedProgram => ({
  programDataAddress: "PD",
  slot: 5,
  upgradeAuthority,
  elfHash,
});

describe("judgeProgram: whether the deployed program is the one the key belongs to", () => {
  it("passes a ceremony key's program only when its whole-ELF hash is the transcript's, and names both hashes and the fingerprint otherwise", () => {
    expect(judgeProgram(ceremony, net, deployed(CEREMONY_HASH))).toBeNull();
    const refusal = judgeProgram(ceremony, net, deployed(DEV_HASH));
    expect(refusal).toContain(`hashes ${DEV_HASH}`);
    expect(refusal).toContain(`not ${CEREMONY_HASH}`);
    expect(refusal).toContain(`fingerprint ${"e".repeat(64)}`);
  });

  it("refuses the development key unless the network allows it, and then admits only the committed development build", () => {
    expect(judgeProgram(development, net, deployed(DEV_HASH))).toMatch(/allowDevelopmentVerifyingKey is not set/);
    const allowed = { ...net, allowDevelopmentVerifyingKey: true };
    expect(judgeProgram(development, allowed, deployed(DEV_HASH))).toBeNull();
    const other = judgeProgram(development, allowed, deployed(CEREMONY_HASH));
    expect(other).toContain(`hashes ${CEREMONY_HASH}, not the committed development build's ${DEV_HASH}`);
    expect(other).toContain(`fingerprint ${"f".repeat(64)}`);
  });

  it("on a production network refuses an upgrade authority that is neither none nor trusted", () => {
    const production = { ...net, production: true };
    expect(judgeProgram(ceremony, production, deployed(CEREMONY_HASH, null))).toBeNull();
    expect(judgeProgram(ceremony, production, deployed(CEREMONY_HASH, AUTHORITY))).toMatch(
      /upgrade authority 9WzD\S+ is neither none nor one of networks\.mainnet\.trustedUpgradeAuthorities/,
    );
    expect(judgeProgram(ceremony, { ...production, trustedUpgradeAuthorities: [AUTHORITY] }, deployed(CEREMONY_HASH, AUTHORITY))).toBeNull();
    // Not production: an authority is the operator's business.
    expect(judgeProgram(ceremony, net, deployed(CEREMONY_HASH, AUTHORITY))).toBeNull();
  });
});

/** A program account and its ProgramData as the upgradeable loader lays them out, served by a scripted getAccountInfo. */
function loaderRpc(
  elf: Uint8Array,
  opts: { slot?: bigint; authority?: string | null; padding?: number; owner?: string } = {},
): SolanaRpc & { calls: unknown[] } {
  const pd = programDataAddress(PROGRAM_ID);
  const program = new Uint8Array(36);
  new DataView(program.buffer).setUint32(0, 2, true);
  program.set(new PublicKey(pd).toBytes(), 4);
  const header = encodeProgramDataHeader({ slot: opts.slot ?? 7n, upgradeAuthority: opts.authority ? new PublicKey(opts.authority).toBytes() : null });
  const data = new Uint8Array(header.length + elf.length + (opts.padding ?? 0));
  data.set(header);
  data.set(elf, header.length);
  const owner = new PublicKey(opts.owner ?? BPF_LOADER_UPGRADEABLE_ID);
  const calls: unknown[] = [];
  return {
    calls,
    getAccountInfo: (key: PublicKey, config?: unknown) => {
      calls.push([key.toBase58(), config]);
      const slice =
        typeof config === "object" && config && "dataSlice" in config ? (config as { dataSlice: { offset: number; length: number } }).dataSlice : null;
      const bytes = key.toBase58() === PROGRAM_ID ? program : key.toBase58() === pd ? data : null;
      if (!bytes) return Promise.resolve(null);
      const out = slice ? bytes.subarray(slice.offset, slice.offset + slice.length) : bytes;
      return Promise.resolve({ owner, data: Buffer.from(out), executable: key.toBase58() === PROGRAM_ID, lamports: 1, rentEpoch: 0 });
    },
  } as unknown as SolanaRpc & { calls: unknown[] };
}

describe("reading the deployed program over RPC", () => {
  const elf = Uint8Array.from([0x7f, 0x45, 0x4c, 0x46, 1, 2, 3, 0, 9]);

  it("hashes ProgramData's bytes after the 45-byte header with the zero padding trimmed, as programElfHash hashes the .so", async () => {
    const p = await readDeployedProgram(loaderRpc(elf, { padding: 4096, authority: AUTHORITY, slot: 42n }), PROGRAM_ID, "confirmed");
    expect(p).toEqual({ programDataAddress: programDataAddress(PROGRAM_ID), slot: 42, upgradeAuthority: AUTHORITY, elfHash: programElfHash(elf) });
    // One byte more (dead data appended to the same code) is another program.
    const longer = await readDeployedProgram(loaderRpc(Uint8Array.from([...elf, 1])), PROGRAM_ID, "confirmed");
    expect(longer.elfHash).not.toBe(p.elfHash);
  });

  it("reads the header alone (dataSlice 0..45) for the watch", async () => {
    const rpc = loaderRpc(elf, { authority: AUTHORITY, slot: 9n });
    expect(await readProgramDataStamp(rpc, programDataAddress(PROGRAM_ID), "confirmed")).toEqual({ exists: true, slot: 9, upgradeAuthority: AUTHORITY });
    expect(rpc.calls.at(-1)).toEqual([programDataAddress(PROGRAM_ID), { commitment: "confirmed", dataSlice: { offset: 0, length: 45 } }]);
  });

  it("refuses an account no BPF loader owns, and hashes a non-upgradeable loader's program account itself", async () => {
    await expect(readDeployedProgram(loaderRpc(elf, { owner: "11111111111111111111111111111111" }), PROGRAM_ID, "confirmed")).rejects.toThrow(
      /not a BPF loader/,
    );
    const v2 = {
      getAccountInfo: () => Promise.resolve({ owner: new PublicKey(BPF_LOADER_2_ID), data: Buffer.from(elf), executable: true, lamports: 1, rentEpoch: 0 }),
    } as unknown as SolanaRpc;
    expect(await readDeployedProgram(v2, PROGRAM_ID, "confirmed")).toEqual({
      programDataAddress: null,
      slot: null,
      upgradeAuthority: null,
      elfHash: programElfHash(elf),
    });
  });
});

/** A deployed program a test changes between polls. */
function scripted(initial: DeployedProgram): DeployedProgramSource & { now: DeployedProgram; reads: number } {
  const s = {
    now: initial,
    reads: 0,
    read: () => {
      s.reads++;
      return Promise.resolve(s.now);
    },
    stamp: (): Promise<ProgramDataStamp> => Promise.resolve({ exists: true, slot: s.now.slot, upgradeAuthority: s.now.upgradeAuthority }),
  };
  return s;
}

describe("ProgramGuard", () => {
  let guard: ProgramGuard | null = null;
  afterEach(async () => {
    await guard?.stop();
  });
  const start = (source: DeployedProgramSource, extra: Partial<GuardedNetwork> = {}, onChange?: (n: string, r: string | null) => void) => {
    const lines: string[] = [];
    guard = new ProgramGuard({
      expectation: ceremony,
      networks: [{ ...net, watchMs: 10, source, ...extra }],
      log: (l) => lines.push(l),
      ...(onChange ? { onChange } : {}),
    });
    return { guard, lines };
  };
  const until = async (f: () => boolean) => {
    for (let i = 0; i < 200 && !f(); i++) await new Promise((r) => setTimeout(r, 10));
    expect(f()).toBe(true);
  };

  it("refuses to start on a mismatched program with a ConfigError naming the network's programId", async () => {
    const { guard } = start(scripted(deployed(DEV_HASH)));
    const e = await guard.check().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConfigError);
    expect((e as Error).message).toMatch(/^config networks\.mainnet\.programId: refused: the deployed program \S+ hashes d{64}, not c{64}/);
  });

  it("stops relays after an upgrade to another binary, says why in /health and the alert, and resumes when the key's binary is back", async () => {
    const source = scripted(deployed(CEREMONY_HASH));
    const changes: [string, string | null][] = [];
    const { guard, lines } = start(source, {}, (n, r) => changes.push([n, r]));
    await guard.check();
    guard.watch();
    expect(guard.refusal("mainnet")).toBeNull();
    expect(guard.health()).toEqual([expect.objectContaining({ name: "program (mainnet)", ok: true })]);

    source.now = { ...deployed(DEV_HASH), slot: 6 };
    await until(() => guard.refusal("mainnet") !== null);
    expect(guard.refusal("mainnet")).toMatch(/^relays on mainnet are stopped: the deployed program \S+ hashes d{64}, not c{64}/);
    expect(guard.refusals()).toEqual([{ network: "mainnet", refusal: expect.stringContaining(DEV_HASH) as string }]);
    expect(guard.health()[0]!.ok).toBe(false);
    expect(guard.adminView("mainnet")).toMatchObject({ key: "ceremony", programHash: DEV_HASH, expectedHash: CEREMONY_HASH, deployedSlot: 6 });
    expect(changes).toEqual([["mainnet", expect.stringContaining(DEV_HASH)]]);
    expect(lines.some((l) => l.startsWith("mainnet: RELAYS STOPPED"))).toBe(true);

    source.now = { ...deployed(CEREMONY_HASH), slot: 7 };
    await until(() => guard.refusal("mainnet") === null);
    expect(changes.at(-1)).toEqual(["mainnet", null]);
  });

  it("reads the whole program only when the header changed (or every twelfth poll)", async () => {
    const source = scripted(deployed(CEREMONY_HASH));
    const { guard } = start(source);
    await guard.check();
    guard.watch();
    await new Promise((r) => setTimeout(r, 100));
    // About ten polls: at most one scheduled full read besides the start's.
    expect(source.reads).toBeLessThanOrEqual(2);
  });

  it("on a production network stops relays when an upgrade authority change makes the program untrusted", async () => {
    const source = scripted(deployed(CEREMONY_HASH));
    const { guard } = start(source, { production: true });
    await guard.check();
    guard.watch();
    source.now = deployed(CEREMONY_HASH, AUTHORITY);
    await until(() => guard.refusal("mainnet") !== null);
    expect(guard.refusal("mainnet")).toMatch(/upgrade authority 9WzD\S+ is neither none nor one of/);
  });

  it("keeps relaying under the last verdict while the RPC fails, says so, and judges the upgrade once a read succeeds", async () => {
    const source = scripted(deployed(CEREMONY_HASH));
    const { guard, lines } = start(source);
    await guard.check();
    let failing = true;
    const read = source.read;
    source.read = () => (failing ? Promise.reject(new Error("fetch failed")) : read());
    source.now = { ...deployed(DEV_HASH), slot: 9 };
    guard.watch();
    await until(() => guard.state("mainnet")?.readError === "fetch failed");
    expect(guard.refusal("mainnet")).toBeNull();
    expect(lines.filter((l) => l.includes("reading the pool program failed (fetch failed)"))).toHaveLength(1);
    failing = false;
    await until(() => guard.refusal("mainnet") !== null);
    expect(guard.state("mainnet")?.readError).toBeNull();
  });

  it("stops relays when the program account stops being a loader's program (NotAProgramError is a verdict)", async () => {
    const source = scripted(deployed(CEREMONY_HASH));
    const { guard } = start(source);
    await guard.check();
    source.read = () => Promise.reject(new NotAProgramError("program X is owned by 1111, not a BPF loader"));
    source.now = { ...deployed(CEREMONY_HASH), slot: 10 };
    guard.watch();
    await until(() => guard.refusal("mainnet") !== null);
    expect(guard.refusal("mainnet")).toContain("the pool program cannot be checked: program X is owned by 1111");
  });
});
