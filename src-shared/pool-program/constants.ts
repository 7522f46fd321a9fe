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
/** Owner of every address lookup table (the relay's own, and the ones its tests and the local validator make). */
export const ADDRESS_LOOKUP_TABLE_PROGRAM_ID = "AddressLookupTab1e1111111111111111111111111";
/**
 * The Instructions sysvar: the transaction's top-level instructions, which
 * withdraw_swap reads to find its assert_swap_out (docs/pool-program.md).
 */
export const SYSVAR_INSTRUCTIONS_ID = "Sysvar1nstructions1111111111111111111111111";
/**
 * The upgradeable BPF loader: owner of a program's ProgramData account
 * (PDA([programId], this loader)), whose upgrade authority alone may
 * initialize pools.
 */
export const BPF_LOADER_UPGRADEABLE_ID = "BPFLoaderUpgradeab1e11111111111111111111111";
/** Seed of the event authority PDA (Anchor's `#[event_cpi]`): the pool program signs its event CPIs with it. */
export const EVENT_AUTHORITY_SEED = "__event_authority";
/**
 * First 8 bytes of an event CPI's data (Anchor's EVENT_IX_TAG_LE,
 * sha256("anchor:event")[0..8] as u64 0x1d9acb512ea545e4 little-endian),
 * then the event's discriminator and Borsh fields.
 */
export const EVENT_IX_TAG: Readonly<Uint8Array> = Uint8Array.from([0xe4, 0x45, 0xa5, 0x2e, 0x51, 0xcb, 0x9a, 0x1d]);
/** Wrapped SOL: a mint like any other for the pool. */
export const NATIVE_MINT = "So11111111111111111111111111111111111111112";

/** Slots in the tree account's ring of recent roots: a root stays acceptable for 1,000 later insertions. */
export const ROOT_HISTORY_SIZE = 1000;
/** Merkle tree depth: every pool's tree has 32 levels, 2^32 leaves. */
export const TREE_DEPTH = 32;

/** Account data sizes in bytes, discriminator included. */
export const TREE_ACCOUNT_SIZE = 33192;
/**
 * A program creates an account of at most 10,240 bytes by CPI
 * (MAX_PERMITTED_DATA_INCREASE), so initialize_pool creates the tree at this
 * size and extend_pool grows it by up to as much per call to TREE_ACCOUNT_SIZE.
 * Until then every other instruction refuses the tree.
 */
export const TREE_INITIAL_SIZE = 10240;
/** The most one extend_pool (one instruction) may grow the tree by. */
export const MAX_PERMITTED_DATA_INCREASE = 10240;
/** Size of the upgradeable loader's ProgramData header before the program's bytes. */
export const PROGRAM_DATA_HEADER_SIZE = 45;
export const NULLIFIER_ACCOUNT_SIZE = 81;
export const DEPOSIT_RECEIPT_SIZE = 134;
/** SPL Token account layout. */
export const TOKEN_ACCOUNT_SIZE = 165;
/** SPL Token mint layout. */
export const MINT_ACCOUNT_SIZE = 82;

/** Groth16 proof wire size: A (64) | B (128) | C (64), src-shared/zk/proof-codec.ts. */
export const PROOF_SIZE = 256;
/** DepositReceipt.leafIndex when the deposit was not inserted. */
export const NO_LEAF_INDEX = 0xffffffff;
/** nextIndex is a u32 and NO_LEAF_INDEX is not an index, so a tree holds at most 2^32 - 1 leaves. */
export const MAX_LEAVES = 0xffffffff;
