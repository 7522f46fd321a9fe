import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { inspect } from "node:util";
import nacl from "tweetnacl";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyEd25519 } from "../../src-shared/crypto/ed25519";
import { parsePublicKey } from "../../src-shared/encoding/base58";
import { Keypair, readKeypairFile, writeKeypairFile } from "./keypair";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "sdk-keypair-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("keypair file (Solana CLI format)", () => {
  it("round-trips: same address, same signatures, 0600", () => {
    const kp = Keypair.generate();
    const file = path.join(dir, "a", "id.json");
    expect(writeKeypairFile(file, kp)).toEqual({ ok: true, value: undefined });
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const raw = JSON.parse(readFileSync(file, "utf8")) as unknown;
    expect(Array.isArray(raw) && raw.length === 64).toBe(true);

    const back = readKeypairFile(file);
    if (!back.ok) throw new Error(back.error);
    expect(back.value.address).toBe(kp.address);
    const sig = back.value.sign("hello");
    expect(verifyEd25519("hello", sig, kp.publicKey)).toBe(true);
    expect(parsePublicKey(kp.address)).toEqual({ ok: true, value: kp.publicKey });
  });

  it("reads a file written by solana-keygen's format (seed ‖ public key)", () => {
    const nk = nacl.sign.keyPair();
    const file = path.join(dir, "cli.json");
    writeFileSync(file, JSON.stringify(Array.from(nk.secretKey)));
    const kp = readKeypairFile(file);
    expect(kp.ok && kp.value.publicKey).toEqual(nk.publicKey);
  });

  it("refuses to overwrite unless asked", () => {
    const file = path.join(dir, "once.json");
    const first = Keypair.generate();
    expect(writeKeypairFile(file, first).ok).toBe(true);
    expect(writeKeypairFile(file, Keypair.generate())).toMatchObject({ ok: false, error: expect.stringMatching(/already exists/) });
    expect(readKeypairFile(file)).toMatchObject({ ok: true, value: { address: first.address } });
    const second = Keypair.generate();
    expect(writeKeypairFile(file, second, { overwrite: true }).ok).toBe(true);
    expect(readKeypairFile(file)).toMatchObject({ ok: true, value: { address: second.address } });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("names what is wrong with a bad file", () => {
    const write = (name: string, text: string): string => {
      const f = path.join(dir, name);
      writeFileSync(f, text);
      return f;
    };
    expect(readKeypairFile(path.join(dir, "nope.json"))).toMatchObject({ ok: false, error: expect.stringMatching(/ENOENT/) });
    expect(readKeypairFile(write("text.json", "hello"))).toMatchObject({ ok: false, error: expect.stringMatching(/not JSON/) });
    expect(readKeypairFile(write("short.json", "[1,2,3]"))).toMatchObject({ ok: false, error: expect.stringMatching(/64 bytes/) });
    expect(readKeypairFile(write("big.json", JSON.stringify(new Array(64).fill(256))))).toMatchObject({ ok: false });
    const nk = nacl.sign.keyPair();
    const bad = Array.from(nk.secretKey);
    bad[40] = (bad[40]! + 1) % 256;
    expect(readKeypairFile(write("mismatch.json", JSON.stringify(bad)))).toMatchObject({ ok: false, error: expect.stringMatching(/does not match/) });
  });

  it("never shows the secret in JSON or inspect", () => {
    const kp = Keypair.generate();
    const secret = Array.from(kp.exportSecretKey().slice(0, 32)).join(",");
    expect(JSON.stringify({ kp })).not.toContain(secret);
    expect(inspect(kp, { depth: 5, showHidden: true })).not.toContain(secret);
    expect(JSON.stringify(kp)).toBe(JSON.stringify(`Keypair(${kp.address})`));
  });
});
