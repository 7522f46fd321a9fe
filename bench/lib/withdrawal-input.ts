import { createPoseidonHasher } from "../../src-shared/crypto/poseidon-wasm";
import { createNote, type DepositNote } from "../../src-client/sdk/note";
import { buildWithdrawalInput, type MerklePathInput, type WithdrawWitnessInput } from "../../src-client/sdk/prove";
import { rootFromPath } from "../../src-client/sdk/tree";

const MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const RELAYER = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin";
const RECIPIENT = "4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T";

/**
 * The proving cases' withdrawal: a fresh 3,000,000 note at leaf 0 of an otherwise empty tree,
 * 1,000,000 of it withdrawn with a 2,500 fee, so every case proves the same statement.
 */
export async function leafZeroWithdrawal(): Promise<{ note: DepositNote; input: WithdrawWitnessInput; publicSignals: string[] }> {
  const hasher = await createPoseidonHasher();
  const made = await createNote({ network: "mainnet", mint: MINT, amount: 3_000_000n, hasher });
  if (!made.ok) throw new Error(made.error);
  const note = made.value;
  const zeros: Uint8Array[] = [new Uint8Array(32)];
  for (let i = 0; i < 32; i++) zeros.push(hasher.hash([zeros[i]!, zeros[i]!]));
  const path = zeros.slice(0, 32);
  const indices = new Array<number>(32).fill(0);
  const merkle: MerklePathInput = { root: rootFromPath(hasher, note.commitment, path, indices), path, indices };
  const built = buildWithdrawalInput(hasher, note, merkle, RECIPIENT, { relayer: RELAYER, fee: 2_500n }, 1_000_000n);
  if (!built.ok) throw new Error(built.error.message);
  return { note, input: built.value.input, publicSignals: built.value.publicSignals };
}
