/**
 * Addresses the pool program uses (docs/pool-program.md "PDAs"). Functions
 * here take and return base58 strings; the tree/nullifier/vault derivations
 * of src-shared/solana/pda.ts (which take raw bytes) are re-exported as they are.
 */
import { pubkeyToField } from "../crypto/pubkey-field";
import type { FieldHasher } from "../crypto/hasher";
import { encodeBase58, publicKeyBytesOrThrow } from "../encoding/base58";
import { nullifierAddress, treeAddress, vaultAddress } from "../solana/pda";
import { findProgramAddress } from "../solana/program-address";
import { ByteWriter } from "./borsh";
import { ASSOCIATED_TOKEN_PROGRAM_ID, BPF_LOADER_UPGRADEABLE_ID, EVENT_AUTHORITY_SEED, TOKEN_PROGRAM_ID } from "./constants";

export { nullifierAddress, treeAddress, vaultAddress };

const enc = new TextEncoder();

/** A base58 public key, or its 32 bytes. Throws on anything else (callers validate input first). */
export function publicKeyBytes(address: string | Uint8Array): Uint8Array {
  if (address instanceof Uint8Array) {
    if (address.length !== 32) throw new RangeError(`a public key is 32 bytes, got ${address.length}`);
    return address;
  }
  return publicKeyBytesOrThrow(address);
}

/** The associated token account of `owner` for `mint`: PDA([owner, TOKEN_PROGRAM_ID, mint], ASSOCIATED_TOKEN_PROGRAM_ID). */
export function associatedTokenAddress(owner: string, mint: string): string {
  return encodeBase58(
    findProgramAddress([publicKeyBytes(owner), publicKeyBytes(TOKEN_PROGRAM_ID), publicKeyBytes(mint)], publicKeyBytes(ASSOCIATED_TOKEN_PROGRAM_ID))[0],
  );
}

/** The nonce as a PDA seed: u64 little-endian. */
export function nonceSeed(nonce: bigint): Uint8Array {
  return new ByteWriter(8).u64(nonce, "nonce").finish();
}

/** A deposit receipt: PDA ["deposit", mint, depositor, nonce u64 LE], with its bump. */
export function findDepositReceiptAddress(programId: string, mint: string, depositor: string, nonce: bigint): [address: string, bump: number] {
  const [key, bump] = findProgramAddress([enc.encode("deposit"), publicKeyBytes(mint), publicKeyBytes(depositor), nonceSeed(nonce)], publicKeyBytes(programId));
  return [encodeBase58(key), bump];
}

export function depositReceiptAddress(programId: string, mint: string, depositor: string, nonce: bigint): string {
  return findDepositReceiptAddress(programId, mint, depositor, nonce)[0];
}

/** A commitment's marker: PDA ["commitment", mint, commitment]; it exists once the commitment is in the tree, so a duplicate deposit fails. */
export function findCommitmentMarkerAddress(programId: string, mint: string, commitment: Uint8Array): [address: string, bump: number] {
  const [key, bump] = findProgramAddress([enc.encode("commitment"), publicKeyBytes(mint), commitment], publicKeyBytes(programId));
  return [encodeBase58(key), bump];
}

export function commitmentMarkerAddress(programId: string, mint: string, commitment: Uint8Array): string {
  return findCommitmentMarkerAddress(programId, mint, commitment)[0];
}

/** The tree PDA with its bump (TreeAccount.bump). */
export function findTreeAddress(programId: string, mint: string): [address: string, bump: number] {
  const [key, bump] = findProgramAddress([enc.encode("merkle_tree"), publicKeyBytes(mint)], publicKeyBytes(programId));
  return [encodeBase58(key), bump];
}

/** Tree, vault and nullifier PDAs from base58 inputs (same derivation as src-shared/solana/pda.ts). */
export function poolTreeAddress(programId: string, mint: string): string {
  return treeAddress(publicKeyBytes(programId), publicKeyBytes(mint));
}
export function poolVaultAddress(programId: string, mint: string): string {
  return vaultAddress(publicKeyBytes(programId), publicKeyBytes(mint));
}
export function poolNullifierAddress(programId: string, mint: string, nullifierHash: Uint8Array): string {
  return nullifierAddress(publicKeyBytes(programId), publicKeyBytes(mint), nullifierHash);
}

/**
 * A swap withdrawal's escrow: PDA ["swap_escrow", mint, nullifierHash] (mint =
 * the pool's input mint), with its bump. withdraw_swap creates it as an SPL
 * token account of the output mint whose token owner is the PDA itself;
 * assert_swap_out empties it to the recipient and closes it. Being a PDA of the
 * pool program (not an ATA), nobody else can create it.
 */
export function findSwapEscrowAddress(programId: string, mint: string, nullifierHash: Uint8Array): [address: string, bump: number] {
  if (nullifierHash.length !== 32) throw new RangeError(`a nullifierHash is 32 bytes, got ${nullifierHash.length}`);
  const [key, bump] = findProgramAddress([enc.encode("swap_escrow"), publicKeyBytes(mint), nullifierHash], publicKeyBytes(programId));
  return [encodeBase58(key), bump];
}

export function swapEscrowAddress(programId: string, mint: string, nullifierHash: Uint8Array): string {
  return findSwapEscrowAddress(programId, mint, nullifierHash)[0];
}

/**
 * The event authority: PDA ["__event_authority"] of the pool program, with its
 * bump (Anchor's `#[event_cpi]`). Only the program can sign for it, so an
 * event CPI naming it as signer comes from the program itself.
 */
export function findEventAuthorityAddress(programId: string): [address: string, bump: number] {
  const [key, bump] = findProgramAddress([enc.encode(EVENT_AUTHORITY_SEED)], publicKeyBytes(programId));
  return [encodeBase58(key), bump];
}

export function eventAuthorityAddress(programId: string): string {
  return findEventAuthorityAddress(programId)[0];
}

/** The program's ProgramData account: PDA([programId], BPFLoaderUpgradeab1e…); its header names the upgrade authority. */
export function programDataAddress(programId: string): string {
  return encodeBase58(findProgramAddress([publicKeyBytes(programId)], publicKeyBytes(BPF_LOADER_UPGRADEABLE_ID))[0]);
}

/** The revert marker: a nullifier account of kind "revert", PDA ["nullifier", mint, revertNullifier]. */
export function revertMarkerAddress(programId: string, mint: string, revertNullifier: Uint8Array): string {
  return poolNullifierAddress(programId, mint, revertNullifier);
}

/**
 * revertNullifier = Poseidon(hi, lo) of the receipt's address: its first and
 * last 16 bytes read big-endian, exactly as a public key enters the circuit
 * (docs/zk.md; same as pubkeyToField in src-server/core/proof/public-inputs.ts,
 * which a test checks).
 */
export function revertNullifierOfReceipt(hasher: FieldHasher, receiptAddressBytes: Uint8Array): Uint8Array {
  if (receiptAddressBytes.length !== 32) throw new RangeError("a receipt address is 32 bytes");
  return pubkeyToField(hasher, receiptAddressBytes);
}
