import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { inspect } from "node:util";
import nacl from "tweetnacl";
import { describe, expect, it } from "vitest";
import { checkKeyFilePermissions, readKeypairFile } from "./keypair-file";

const dir = mkdtempSync(path.join(tmpdir(), "keys-"));
const write = (name: string, content: string, mode = 0o600): string => {
  const f = path.join(dir, name);
  writeFileSync(f, content, { mode });
  chmodSync(f, mode);
  return f;
};

describe("readKeypairFile (an operator's Solana CLI keypair)", () => {
  it("loads a 64-byte JSON array and signs as its public key, without ever printing the secret", () => {
    const kp = nacl.sign.keyPair();
    const signer = readKeypairFile(write("ok.json", JSON.stringify(Array.from(kp.secretKey))));
    expect(signer.publicKey).toEqual(kp.publicKey);
    const sig = signer.sign("hello");
    expect(nacl.sign.detached.verify(new TextEncoder().encode("hello"), sig, kp.publicKey)).toBe(true);
    const shown = `${JSON.stringify(signer)} ${inspect(signer)} ${String(Object.values(signer))}`;
    expect(shown).not.toContain(String(Array.from(kp.secretKey.slice(0, 8))));
  });

  it.each([
    ["a missing file", () => path.join(dir, "absent.json"), "cannot be read: ENOENT"],
    ["text that is not JSON", () => write("text.json", "not json"), "is not a JSON keypair"],
    ["63 bytes", () => write("short.json", JSON.stringify(new Array(63).fill(1))), "is not a 64-byte Solana keypair"],
    ["a byte of 256", () => write("big.json", JSON.stringify([...new Array(63).fill(1), 256])), "is not a 64-byte Solana keypair"],
    [
      "a public half of another key",
      () => write("mixed.json", JSON.stringify([...nacl.sign.keyPair().secretKey.slice(0, 32), ...nacl.sign.keyPair().publicKey])),
      "does not belong",
    ],
  ])("refuses %s with a message naming the file", (_n, file, message) => {
    const f = file();
    expect(() => readKeypairFile(f)).toThrow(message);
    expect(() => readKeypairFile(f)).toThrow(f);
  });

  it.skipIf(process.platform === "win32")("refuses a key file others can read, with the chmod that fixes it, and accepts mode 600", () => {
    const secret = JSON.stringify(Array.from(nacl.sign.keyPair().secretKey));
    for (const mode of [0o644, 0o640, 0o604, 0o620]) {
      const f = write(`open-${mode.toString(8)}.json`, secret, mode);
      expect(checkKeyFilePermissions(f)).toContain(`(mode ${mode.toString(8)})`);
      expect(() => readKeypairFile(f)).toThrow(`chmod 600 ${f}`);
      expect(() => readKeypairFile(f)).toThrow("refusing to use it");
    }
    const closed = write("closed.json", secret, 0o600);
    expect(checkKeyFilePermissions(closed)).toBeNull();
    expect(readKeypairFile(closed).address).toBeTruthy();
    const spaced = write("with space.json", secret, 0o644);
    expect(() => readKeypairFile(spaced)).toThrow(`chmod 600 '${spaced}'`);
  });
});
