import { sha256Hex } from "./sha256";

/**
 * Bytes before the program's ELF in an upgradeable program's ProgramData account:
 * a 4-byte enum tag, the 8-byte last-deployed slot and the Option<Pubkey> upgrade
 * authority (1 + 32 bytes, written in full even when None).
 */
export const PROGRAM_DATA_HEADER_BYTES = 45;

/**
 * The program hash of docs/ceremony.md: sha256 of the ELF with trailing zero bytes trimmed,
 * lowercase hex. Trimming makes a built `.so` and the deployed copy agree: ProgramData is
 * allocated larger than the ELF (room for upgrades) and the rest is zero. For a `.so` file
 * pass its bytes; for the chain pass the ProgramData account's data after
 * {@link PROGRAM_DATA_HEADER_BYTES}. An ELF that itself ends in zero bytes hashes the same
 * as without them, which is harmless: in the account those bytes are zero either way.
 */
export function programElfHash(bytes: Uint8Array): string {
  let end = bytes.length;
  while (end > 0 && bytes[end - 1] === 0) end--;
  return sha256Hex(bytes.subarray(0, end));
}
