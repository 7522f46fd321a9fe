import { PublicKey } from "@solana/web3.js";
import { describe, expect, it } from "vitest";
import { pubkeyToField } from "../../src-server/core/proof/public-inputs";
import { createPoseidonHasher } from "../crypto/poseidon-wasm";
import { toHex } from "../encoding/bytes";
import { nullifierAddress, treeAddress, vaultAddress } from "../solana/pda";
import {
  associatedTokenAddress,
  depositReceiptAddress,
  eventAuthorityAddress,
  findDepositReceiptAddress,
  findEventAuthorityAddress,
  findTreeAddress,
  nonceSeed,
  poolNullifierAddress,
  poolTreeAddress,
  poolVaultAddress,
  programDataAddress,
  revertMarkerAddress,
  revertNullifierOfReceipt,
  findSwapEscrowAddress,
  swapEscrowAddress,
} from "./addresses";
import { ASSOCIATED_TOKEN_PROGRAM_ID, BPF_LOADER_UPGRADEABLE_ID, DEFAULT_POOL_PROGRAM_ID, NATIVE_MINT, TOKEN_PROGRAM_ID } from "./constants";

const fill = (b: number, n = 32): Uint8Array => new Uint8Array(n).fill(b);
const PROGRAM = DEFAULT_POOL_PROGRAM_ID;
const MINT = NATIVE_MINT;
const OWNER = new PublicKey(fill(0x0d)).toBase58();
const key = (s: string): Uint8Array => new PublicKey(s).toBytes();

describe("pool addresses", () => {
  it("the associated token account is PDA([owner, token program, mint]) under the ATA program", () => {
    const [expected] = PublicKey.findProgramAddressSync([key(OWNER), key(TOKEN_PROGRAM_ID), key(MINT)], new PublicKey(ASSOCIATED_TOKEN_PROGRAM_ID));
    expect(associatedTokenAddress(OWNER, MINT)).toBe(expected.toBase58());
    expect(associatedTokenAddress(MINT, OWNER)).not.toBe(expected.toBase58());
  });

  it("a deposit receipt is PDA ['deposit', mint, depositor, nonce u64 LE] and its bump recreates it", () => {
    expect(toHex(nonceSeed(0x0102n))).toBe("0201000000000000");
    const [address, bump] = findDepositReceiptAddress(PROGRAM, MINT, OWNER, 258n);
    const recreated = PublicKey.createProgramAddressSync(
      [new TextEncoder().encode("deposit"), key(MINT), key(OWNER), Uint8Array.from([2, 1, 0, 0, 0, 0, 0, 0]), Uint8Array.of(bump)],
      new PublicKey(PROGRAM),
    );
    expect(address).toBe(recreated.toBase58());
    expect(depositReceiptAddress(PROGRAM, MINT, OWNER, 258n)).toBe(address);
    expect(depositReceiptAddress(PROGRAM, MINT, OWNER, 259n)).not.toBe(address);
  });

  it("tree, vault and nullifier from base58 are the shared pda.ts derivations", () => {
    const p = key(PROGRAM);
    const m = key(MINT);
    expect(poolTreeAddress(PROGRAM, MINT)).toBe(treeAddress(p, m));
    expect(findTreeAddress(PROGRAM, MINT)[0]).toBe(treeAddress(p, m));
    expect(poolVaultAddress(PROGRAM, MINT)).toBe(vaultAddress(p, m));
    expect(poolNullifierAddress(PROGRAM, MINT, fill(7))).toBe(nullifierAddress(p, m, fill(7)));
  });

  it("the revert marker is the nullifier PDA of the revertNullifier", () => {
    expect(revertMarkerAddress(PROGRAM, MINT, fill(9))).toBe(nullifierAddress(key(PROGRAM), key(MINT), fill(9)));
  });

  it("the swap escrow is PDA ['swap_escrow', mint, nullifierHash] of the pool program, one per (mint, nullifierHash)", () => {
    const [address, bump] = findSwapEscrowAddress(PROGRAM, MINT, fill(0x33));
    const recreated = PublicKey.createProgramAddressSync(
      [new TextEncoder().encode("swap_escrow"), key(MINT), fill(0x33), Uint8Array.of(bump)],
      new PublicKey(PROGRAM),
    );
    expect(address).toBe(recreated.toBase58());
    expect(swapEscrowAddress(PROGRAM, MINT, fill(0x33))).toBe(address);
    expect(swapEscrowAddress(PROGRAM, MINT, fill(0x34))).not.toBe(address);
    expect(swapEscrowAddress(PROGRAM, OWNER, fill(0x33))).not.toBe(address);
    expect(() => swapEscrowAddress(PROGRAM, MINT, fill(0x33, 31))).toThrow(RangeError);
  });

  it("revertNullifierOfReceipt is the receipt address as a circuit public key: Poseidon(hi16, lo16), same as the server's pubkeyToField", async () => {
    const hasher = await createPoseidonHasher();
    const receipt = key(depositReceiptAddress(PROGRAM, MINT, OWNER, 1n));
    const hi = new Uint8Array(32);
    const lo = new Uint8Array(32);
    hi.set(receipt.subarray(0, 16), 16);
    lo.set(receipt.subarray(16), 16);
    expect(revertNullifierOfReceipt(hasher, receipt)).toEqual(hasher.hash([hi, lo]));
    expect(revertNullifierOfReceipt(hasher, receipt)).toEqual(pubkeyToField(hasher, receipt));
    expect(() => revertNullifierOfReceipt(hasher, fill(1, 31))).toThrow(RangeError);
  });

  it("the event authority is PDA ['__event_authority'] of the program (Anchor's #[event_cpi]) and its bump recreates it", () => {
    const [address, bump] = findEventAuthorityAddress(PROGRAM);
    expect(eventAuthorityAddress(PROGRAM)).toBe(address);
    const again = PublicKey.createProgramAddressSync([new TextEncoder().encode("__event_authority"), Uint8Array.of(bump)], new PublicKey(PROGRAM));
    expect(again.toBase58()).toBe(address);
    expect(eventAuthorityAddress(OWNER)).not.toBe(address);
  });

  it("the ProgramData account is PDA([programId]) of the upgradeable loader", () => {
    const [expected] = PublicKey.findProgramAddressSync([key(PROGRAM)], new PublicKey(BPF_LOADER_UPGRADEABLE_ID));
    expect(programDataAddress(PROGRAM)).toBe(expected.toBase58());
  });
});
