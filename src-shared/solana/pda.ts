import { PublicKey } from "@solana/web3.js";

const enc = new TextEncoder();

/** The tree account of a pool: PDA ["merkle_tree", mint] under the program (docs/pool-program.md: PDAs). */
export function treeAddress(programId: Uint8Array, mint: Uint8Array): string {
  return PublicKey.findProgramAddressSync([enc.encode("merkle_tree"), mint], new PublicKey(programId))[0].toBase58();
}

/** A nullifier account: PDA ["nullifier", mint, nullifierHash]; spent per pool. */
export function nullifierAddress(programId: Uint8Array, mint: Uint8Array, nullifierHash: Uint8Array): string {
  return PublicKey.findProgramAddressSync([enc.encode("nullifier"), mint, nullifierHash], new PublicKey(programId))[0].toBase58();
}

/** The pool's token vault: PDA ["vault", mint]. */
export function vaultAddress(programId: Uint8Array, mint: Uint8Array): string {
  return PublicKey.findProgramAddressSync([enc.encode("vault"), mint], new PublicKey(programId))[0].toBase58();
}
