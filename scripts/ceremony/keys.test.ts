import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import bs58 from "bs58";
import nacl from "tweetnacl";
import { afterAll, describe, expect, it } from "vitest";
import { parseDuration } from "./beacon";
import { parseContributors, readKeypairFile } from "./keys";

const pair = nacl.sign.keyPair.fromSeed(new Uint8Array(32).fill(3));
const pub = bs58.encode(pair.publicKey);
const dir = mkdtempSync(join(tmpdir(), "ceremony-keys-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the announced contributors file", () => {
  it("reads '<name> <key>' lines, names with spaces, skipping blanks and # comments", () => {
    expect(parseContributors(`# who\n\nAda Lovelace ${pub}\n`)).toEqual([{ name: "Ada Lovelace", publicKey: pub }]);
  });

  it("reads a JSON array of { name, publicKey }", () => {
    expect(parseContributors(JSON.stringify([{ name: "ada", publicKey: pub }]))).toEqual([{ name: "ada", publicKey: pub }]);
  });

  it("refuses a key listed twice, a key that is not base58 ed25519, and an empty list", () => {
    expect(() => parseContributors(`a ${pub}\nb ${pub}`)).toThrow(/listed twice/);
    expect(() => parseContributors("a 0xnotakey")).toThrow(/not a base58/);
    expect(() => parseContributors("# nobody\n")).toThrow(/empty/);
  });
});

describe("a contributor's Solana keypair file", () => {
  it("gives the base58 public key of a 64-byte JSON array", () => {
    writeFileSync(join(dir, "k.json"), JSON.stringify(Array.from(pair.secretKey)));
    expect(readKeypairFile(join(dir, "k.json")).publicKey).toBe(pub);
  });

  it("refuses a file whose public half is not its secret half's key", () => {
    const bad = Array.from(pair.secretKey);
    bad[40] = bad[40]! ^ 1;
    writeFileSync(join(dir, "bad.json"), JSON.stringify(bad));
    expect(() => readKeypairFile(join(dir, "bad.json"))).toThrow(/public half/);
  });
});

describe("--beacon-delay", () => {
  it("reads 48h, 2d, 90m and 1d12h, and nothing else", () => {
    expect(parseDuration("48h")).toBe(48 * 3_600_000);
    expect(parseDuration("2d")).toBe(2 * 86_400_000);
    expect(parseDuration("90m")).toBe(90 * 60_000);
    expect(parseDuration("1d12h")).toBe(36 * 3_600_000);
    expect(parseDuration("48")).toBeNull();
    expect(parseDuration("soon")).toBeNull();
  });
});
