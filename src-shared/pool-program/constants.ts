/**
 * Fixed facts of the pool program and the programs it works with
 * (docs/pool-program.md). Program ids are base58 strings.
 */

/** The program's name in its IDL (docs/pool-program.idl.json). */
export const POOL_PROGRAM_NAME = "privacy_pool";
/** The program id a config gets when it names none (also the IDL's metadata.address). */
export const DEFAULT_POOL_PROGRAM_ID = "FJ5caa9BvE33vmuBc3zFN2JJFAvGHL8UjeQ2b8iBEqZJ";

export const TOKEN_PROGRAM_ID = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
export const ASSOCIATED_TOKEN_PROGRAM_ID = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL";
export const SYSTEM_PROGRAM_ID = "11111111111111111111111111111111";
/** Use web3.js's ComputeBudgetProgram to build its instructions; this id is for matching. */
export const COMPUTE_BUDGET_PROGRAM_ID = "ComputeBudget111111111111111111111111111111";
/**
 * The Instructions sysvar: the transaction's top-level instructions, which
 * withdraw_swap reads to find its assert_swap_out (docs/pool-program.md).
 */
export const SYSVAR_INSTRUCTIONS_ID = "Sysvar1nstructions1111111111111111111111111";
/** Owner of every sysvar account. */
export const SYSVAR_OWNER_ID = "Sysvar1111111111111111111111111111111111111";
/** Wrapped SOL: a mint like any other for the pool. */
export const NATIVE_MINT = "So11111111111111111111111111111111111111112";

/** Slots in the tree account's ring of recent roots. */
export const ROOT_HISTORY_SIZE = 100;
/** Merkle tree depth: every pool's tree has 32 levels, 2^32 leaves. */
export const TREE_DEPTH = 32;

/** Account data sizes in bytes, discriminator included. */
export const TREE_ACCOUNT_SIZE = 4353;
export const NULLIFIER_ACCOUNT_SIZE = 81;
export const DEPOSIT_RECEIPT_SIZE = 134;
/** SPL Token account layout. */
export const TOKEN_ACCOUNT_SIZE = 165;

/** Groth16 proof wire size: A (64) | B (128) | C (64), src-shared/zk/proof-codec.ts. */
export const PROOF_SIZE = 256;
/** DepositReceipt.leafIndex when the deposit was not inserted. */
export const NO_LEAF_INDEX = 0xffffffff;
