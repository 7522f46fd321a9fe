import { encodeBase58 } from "../encoding/base58";
import { findProgramAddress } from "./program-address";

const enc = new TextEncoder();

/** The tree account of a pool: PDA ["merkle_tree", mint] under the program (docs/pool-program.md: PDAs). */
export function treeAddress(programId: Uint8Array, mint: Uint8Array): string {
  return encodeBase58(findProgramAddress([enc.encode("merkle_tree"), mint], programId)[0]);
}

/** A nullifier account: PDA ["nullifier", mint, nullifierHash]; spent per pool. */
export function nullifierAddress(programId: Uint8Array, mint: Uint8Array, nullifierHash: Uint8Array): string {
  return encodeBase58(findProgramAddress([enc.encode("nullifier"), mint, nullifierHash], programId)[0]);
}

/** The pool's token vault: PDA ["vault", mint]. */
export function vaultAddress(programId: Uint8Array, mint: Uint8Array): string {
  return encodeBase58(findProgramAddress([enc.encode("vault"), mint], programId)[0]);
}
