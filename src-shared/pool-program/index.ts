/**
 * The pool program's interface in bytes (docs/pool-program.md, pool-program.idl.json):
 * the one implementation shared by the sandbox, the Solana RPC backend and the
 * local validator. Browser-safe.
 *
 * Conventions: codecs (accounts, instruction data, events) deal in raw bytes
 * (public keys 32 bytes, field elements 32 bytes big-endian) and bigint for
 * u64/i64; builders and address functions take and return base58 strings.
 */
export * from "./constants";
export * from "./discriminators";
export * from "./accounts";
export * from "./addresses";
export * from "./instructions";
export * from "./builders";
export * from "./events";
export * from "./errors";
export { encodeBase64, decodeBase64 } from "./base64";
