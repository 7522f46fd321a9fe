import { generateEd25519SecretKey } from "../../../src-shared/node/ed25519-native";
import { Signer } from "../../../src-shared/node/keypair-file";
import type { SecretStore } from "../../ports/secret-store";

/**
 * The named ed25519 key from a secret store, created on first start. With the
 * headless FileSecretStore this is `<dir>/<name>.json`, a Solana CLI keypair
 * file (the format readKeypairFile reads); the desktop store encrypts it.
 */
export function loadOrCreateSigner(store: SecretStore, name: string): Signer {
  const existing = store.load(name);
  if (existing) {
    if (existing.length !== 64) throw new Error(`key ${name} is not a 64-byte ed25519 keypair`);
    return new Signer(existing);
  }
  const secretKey = generateEd25519SecretKey();
  store.save(name, secretKey);
  return new Signer(secretKey);
}
