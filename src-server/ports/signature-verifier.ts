import type { Ed25519Verify } from "../../src-shared/crypto/ed25519";

/**
 * The ed25519 check the services run on signed requests (login, revert):
 * true only for a valid signature that Solana's `verify_strict` accepts too.
 * Composition passes the node:crypto one (src-shared/node/ed25519-native.ts),
 * fast enough that a flood of signed requests cannot hold the event loop;
 * src-shared's tweetnacl check gives the same answers, slower.
 */
export type SignatureVerifier = Ed25519Verify;
