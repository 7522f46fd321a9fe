/** The contributors' ed25519 keys: the announced list and a contributor's Solana CLI keypair file. */
import { readFileSync } from "node:fs";
import nacl from "tweetnacl";
import { encodeBase58, parsePublicKey } from "../../src-shared/encoding/base58";
import { bytesEqual } from "../../src-shared/encoding/bytes";
import type { CeremonyContributor } from "../../src-shared/ceremony/transcript";

/**
 * The announced contributors, in order: a JSON array of { name, publicKey }, or text lines
 * "<name> <base58 public key>" (the key is the last word, so a name may hold spaces; blank
 * lines and # comments are skipped).
 */
export function parseContributors(text: string): CeremonyContributor[] {
  const trimmed = text.trim();
  const list: CeremonyContributor[] = trimmed.startsWith("[")
    ? (JSON.parse(trimmed) as CeremonyContributor[])
    : trimmed
        .split("\n")
        .map((l) => l.trim())
        .filter((l) => l !== "" && !l.startsWith("#"))
        .map((l) => {
          const m = /^(.+?)\s+(\S+)$/.exec(l);
          if (!m) throw new Error(`contributors: "${l}" is not "<name> <public key>"`);
          return { name: m[1]!, publicKey: m[2]! };
        });
  if (list.length === 0) throw new Error("contributors: the list is empty");
  const seen = new Set<string>();
  for (const c of list) {
    if (typeof c.name !== "string" || c.name.trim() === "" || c.name.trim() !== c.name)
      throw new Error(`contributors: ${JSON.stringify(c)} has no usable name`);
    if (!parsePublicKey(c.publicKey).ok) throw new Error(`contributors: ${c.name}'s key ${String(c.publicKey)} is not a base58 ed25519 public key`);
    if (seen.has(c.publicKey)) throw new Error(`contributors: the key ${c.publicKey} is listed twice`);
    seen.add(c.publicKey);
  }
  return list.map((c) => ({ name: c.name, publicKey: c.publicKey }));
}

/** A Solana CLI keypair file (a JSON array of the 64 secret-key bytes); checks that its two halves belong together. */
export function readKeypairFile(path: string): { publicKey: string; secretKey: Uint8Array } {
  const bytes: unknown = JSON.parse(readFileSync(path, "utf8"));
  if (!Array.isArray(bytes) || bytes.length !== 64 || bytes.some((b) => !Number.isInteger(b) || (b as number) < 0 || (b as number) > 255)) {
    throw new Error(`${path} is not a Solana keypair file (a JSON array of 64 bytes)`);
  }
  const secretKey = Uint8Array.from(bytes as number[]);
  const pair = nacl.sign.keyPair.fromSeed(secretKey.subarray(0, 32));
  if (!bytesEqual(pair.publicKey, secretKey.subarray(32))) throw new Error(`${path}: its public half is not the key of its secret half`);
  return { publicKey: encodeBase58(pair.publicKey), secretKey: pair.secretKey };
}
