/*
 * The pool program (docs/pool-program.md, protocol v3): what its files share.
 *
 * Every byte layout, discriminator, PDA seed and error code here is the codec's
 * (src-shared/pool-program/); programs/pool/pool.test.ts pins them against it. Files by
 * concern: entrypoint.c (dispatch), errors.c, accounts.c (account checks), pda.c,
 * poseidon.c, merkle.c, cpi.c, sysvars.c, introspection.c (Instructions sysvar), events.c,
 * and one file per instruction.
 *
 * Conventions of this SBPF v0 / clang 14 build (what its loader and linker accept): no writable globals
 * (const tables only), 512 bytes of stack per function (big buffers live on the heap or in
 * the accounts' own data), at most 5 arguments, 64-bit arithmetic, no function pointers.
 * Handlers return 0 or the error the instruction fails with; every refusal has logged its
 * line (`Error: <Name>` or Anchor's `AnchorError ...`) before it is returned.
 */
#ifndef POOL_H
#define POOL_H

#include <solana_sdk.h>

/* Not declared by solana_sdk.h. curve_id 0 = Curve25519 Edwards; returns 0 when the 32
 * bytes are a point on the curve (what Pubkey::is_on_curve tests), 1 when not. */
uint64_t sol_curve_validate_point(uint64_t curve_id, const uint8_t *point, uint8_t *result);
#define CURVE25519_EDWARDS 0

/* ---- Sizes and offsets (src-shared/pool-program/constants.ts, accounts.ts) ------------ */

#define TREE_DEPTH 32
/* A root stays acceptable for 1,000 later insertions (issue 25: flushing a pending proof's root
 * out of the ring must take 1,000 deposits of at least the pool's minimum). */
#define ROOT_HISTORY_SIZE 1000
/* nextIndex is a u32 and 0xFFFFFFFF means "no leaf" in a receipt, so at most 2^32 - 1 leaves. */
#define MAX_LEAVES 0xFFFFFFFFULL
#define NO_LEAF_INDEX 0xFFFFFFFFULL

/* The ring is 32,000 of the 33,192 bytes, then F(mint). A CPI can create at most 10,240 bytes, so
 * initialize_pool creates TREE_INITIAL_SIZE and extend_pool grows it by at most
 * MAX_PERMITTED_DATA_INCREASE per instruction; every other instruction refuses a tree that is not
 * TREE_ACCOUNT_SIZE. The fields other than the ring lie in the first 10,240 bytes, so
 * initialize_pool writes them all. */
#define TREE_ACCOUNT_SIZE 33192
#define TREE_INITIAL_SIZE 10240
#define TREE_OFF_MINT 8
#define TREE_OFF_AUTHORITY 40
#define TREE_OFF_NEXT_INDEX 72
#define TREE_OFF_CURRENT_ROOT_INDEX 76
#define TREE_OFF_FILLED 80
#define TREE_OFF_DEPOSIT_COUNT 1104
#define TREE_OFF_TOTAL_DEPOSITED 1112
#define TREE_OFF_TOTAL_WITHDRAWN 1120
#define TREE_OFF_CREATED_SLOT 1128
#define TREE_OFF_MIN_DEPOSIT 1136
#define TREE_OFF_BUMP 1144
#define TREE_OFF_EVENT_AUTHORITY_BUMP 1145
#define TREE_OFF_VAULT_BUMP 1146 /* in what was reserved: the vault's canonical bump */
#define TREE_OFF_ROOTS 1160
/* F(mint) = Poseidon(hi, lo) of the mint, which every deposit leaf and every withdrawal's public
 * inputs need: stored once (by the extend_pool that completes the tree) instead of hashed by each
 * of them (786 CU, which pays for the event's self-CPI in deposit's 40k budget). */
#define TREE_OFF_MINT_FIELD 33160

/* The upgradeable loader's ProgramData header: state u32 (3) @0, slot u64 @4, upgrade authority
 * Option<Pubkey>: tag u8 @12, key @13. */
#define PROGRAM_DATA_STATE 3
#define PROGRAM_DATA_OFF_AUTHORITY_TAG 12
#define PROGRAM_DATA_OFF_AUTHORITY 13
#define PROGRAM_DATA_HEADER_SIZE 45

#define NULLIFIER_ACCOUNT_SIZE 81 /* disc 8 | mint 32 | nullifierHash 32 | kind u8 | slot u64 */
#define NULLIFIER_KIND_WITHDRAW 0
#define NULLIFIER_KIND_REVERT 1

#define RECEIPT_SIZE 134 /* disc | mint | depositor | commitment | amount | nonce | status | leafIndex | createdAt | bump */
#define RECEIPT_OFF_MINT 8
#define RECEIPT_OFF_DEPOSITOR 40
#define RECEIPT_OFF_COMMITMENT 72
#define RECEIPT_OFF_AMOUNT 104
#define RECEIPT_OFF_NONCE 112
#define RECEIPT_OFF_STATUS 120
#define RECEIPT_OFF_LEAF_INDEX 121
#define RECEIPT_OFF_CREATED_AT 125
#define RECEIPT_OFF_BUMP 133
#define RECEIPT_STATUS_INDEXED 0
#define RECEIPT_STATUS_FAILED 1
#define RECEIPT_STATUS_REVERTED 2

/* SPL Token account (165 bytes) and mint (82 bytes). */
#define TOKEN_ACCOUNT_SIZE 165
#define TOKEN_OFF_MINT 0
#define TOKEN_OFF_OWNER 32
#define TOKEN_OFF_AMOUNT 64
#define TOKEN_OFF_STATE 108
#define MINT_SIZE 82
#define MINT_OFF_IS_INITIALIZED 45

#define PROOF_SIZE 256

/* ---- Instruction data (discriminator ‖ Borsh args; exact lengths, instructions.ts) ---- */

#define IX_INITIALIZE_POOL_LEN 16 /* minDeposit @8 */
#define IX_EXTEND_POOL_LEN 8
#define IX_DEPOSIT_LEN 56 /* precommitment @8, amount @40, nonce @48 */
#define IX_WITHDRAW_LEN 408 /* proof @8, root @264, nullifierHash @296, recipient @328, amount @360, fee @368, changeCommitment @376 */
#define IX_WITHDRAW_SWAP_LEN 448 /* ...withdraw's, outputMint @408, minOut @440 */
#define IX_ASSERT_SWAP_OUT_LEN 48 /* minOut @8, nullifierHash @16 */
#define IX_REVERT_LEN 16 /* nonce @8 */

#define WD_OFF_PROOF 8
#define WD_OFF_ROOT 264
#define WD_OFF_NULLIFIER_HASH 296
#define WD_OFF_RECIPIENT 328
#define WD_OFF_AMOUNT 360
#define WD_OFF_FEE 368
#define WD_OFF_CHANGE_COMMITMENT 376
#define WD_OFF_OUTPUT_MINT 408
#define WD_OFF_MIN_OUT 440
#define ASO_OFF_MIN_OUT 8
#define ASO_OFF_NULLIFIER_HASH 16

/* ---- Errors -------------------------------------------------------------------------- */

/* The pool's own (errors.ts, 6000 + n): logged `Error: <Name>`. */
#define ERR_INVALID_PROOF 6000
#define ERR_UNKNOWN_ROOT 6001
#define ERR_NULLIFIER_SPENT 6002
#define ERR_FEE_EXCEEDS_AMOUNT 6003
#define ERR_TREE_FULL 6004
#define ERR_NOT_AUTHORITY 6005
#define ERR_NOT_REVERTABLE 6006
#define ERR_SWAP_OUTPUT_TOO_LOW 6007
#define ERR_INSUFFICIENT_VAULT 6008
#define ERR_WRONG_TOKEN_ACCOUNT 6009
#define ERR_SWAP_ASSERT_MISSING 6010
#define ERR_SWAP_ASSERT_DUPLICATED 6011
#define ERR_SWAP_ASSERT_WRONG_ACCOUNT 6012
#define ERR_REQUIRED_BALANCE_TOO_LOW 6013
#define ERR_DUPLICATE_WITHDRAW_SWAP 6014
#define ERR_INVALID_INPUT 6015
#define ERR_DEPOSIT_BELOW_MINIMUM 6016

/* Anchor's framework errors the program raises before its own rules (anchor-lang ErrorCode;
 * the same codes and log lines as src-localnet/programs/runtime-helpers.ts). */
#define AE_INSTRUCTION_FALLBACK_NOT_FOUND 101
#define AE_INSTRUCTION_DID_NOT_DESERIALIZE 102
#define AE_CONSTRAINT_MUT 2000
#define AE_CONSTRAINT_SEEDS 2006
#define AE_CONSTRAINT_ASSOCIATED 2009
#define AE_CONSTRAINT_ADDRESS 2012
#define AE_CONSTRAINT_TOKEN_MINT 2014
#define AE_CONSTRAINT_TOKEN_OWNER 2015
#define AE_ACCOUNT_DISCRIMINATOR_MISMATCH 3002
#define AE_ACCOUNT_DID_NOT_DESERIALIZE 3003
#define AE_ACCOUNT_NOT_ENOUGH_KEYS 3005
#define AE_ACCOUNT_OWNED_BY_WRONG_PROGRAM 3007
#define AE_INVALID_PROGRAM_ID 3008
#define AE_ACCOUNT_NOT_SIGNER 3010
#define AE_ACCOUNT_NOT_INITIALIZED 3012

/* Account names in Anchor's error lines (`AnchorError caused by account: <name>.`). */
enum {
  ACC_NONE = 0,
  ACC_AUTHORITY,
  ACC_MINT,
  ACC_TREE,
  ACC_VAULT,
  ACC_TOKEN_PROGRAM,
  ACC_SYSTEM_PROGRAM,
  ACC_ASSOCIATED_TOKEN_PROGRAM,
  ACC_DEPOSITOR,
  ACC_DEPOSITOR_TOKEN_ACCOUNT,
  ACC_RECEIPT,
  ACC_COMMITMENT_MARKER,
  ACC_RELAYER,
  ACC_NULLIFIER,
  ACC_RECIPIENT,
  ACC_RECIPIENT_TOKEN_ACCOUNT,
  ACC_RELAYER_TOKEN_ACCOUNT,
  ACC_SWAP_ESCROW,
  ACC_RECIPIENT_OUTPUT_TOKEN_ACCOUNT,
  ACC_OUTPUT_MINT,
  ACC_INSTRUCTIONS_SYSVAR,
  ACC_REVERT_MARKER,
  ACC_PROGRAM_DATA,
  ACC_EVENT_AUTHORITY,
  ACC_PROGRAM,
  ACC_PAYER,
};

/* Logs `Error: <Name>` and returns Custom(code). */
uint64_t pool_error(uint64_t code);
/* Logs Anchor's line for a framework error (account ACC_NONE: "AnchorError occurred.") and returns Custom(code). */
uint64_t anchor_error(uint64_t code, uint64_t account);

/* ---- Fixed keys and tables (consts.c) -------------------------------------------------- */

extern const SolPubkey SYSTEM_PROGRAM_ID;
extern const SolPubkey TOKEN_PROGRAM_ID;
extern const SolPubkey ASSOCIATED_TOKEN_PROGRAM_ID;
extern const SolPubkey SYSVAR_INSTRUCTIONS_ID;
extern const SolPubkey BPF_LOADER_UPGRADEABLE_ID;

extern const uint8_t DISC_IX_INITIALIZE_POOL[8];
extern const uint8_t DISC_IX_DEPOSIT[8];
extern const uint8_t DISC_IX_WITHDRAW[8];
extern const uint8_t DISC_IX_WITHDRAW_SWAP[8];
extern const uint8_t DISC_IX_ASSERT_SWAP_OUT[8];
extern const uint8_t DISC_IX_REVERT[8];
extern const uint8_t DISC_IX_EXTEND_POOL[8];
/* Anchor's EVENT_IX_TAG_LE: the first 8 bytes of an event CPI's data. */
extern const uint8_t EVENT_IX_TAG[8];
/* "__event_authority", the event authority PDA's seed. */
extern const uint8_t SEED_EVENT_AUTHORITY[17];
extern const uint8_t DISC_TREE_ACCOUNT[8];
extern const uint8_t DISC_NULLIFIER_ACCOUNT[8];
extern const uint8_t DISC_DEPOSIT_RECEIPT[8];
extern const uint8_t DISC_DEPOSIT_EVENT[8];
extern const uint8_t DISC_DEPOSIT_FAILED_EVENT[8];
extern const uint8_t DISC_WITHDRAW_EVENT[8];
extern const uint8_t DISC_REVERT_EVENT[8];

/* BN254 scalar field modulus r, big-endian. */
extern const uint8_t FIELD_MODULUS[32];

/* ---- Bytes (accounts.c) ----------------------------------------------------------------- */

/* Little-endian integers at any alignment (account and instruction data are packed Borsh). */
uint64_t rd_u64(const uint8_t *p);
uint64_t rd_u32(const uint8_t *p);
uint64_t rd_u16(const uint8_t *p);
void wr_u64(uint8_t *p, uint64_t v);
void wr_u32(uint8_t *p, uint64_t v);
/* 32 bytes equal, at any alignment. */
bool eq32(const void *a, const void *b);
/* 8 bytes equal (discriminators), at any alignment. */
bool eq8(const uint8_t *a, const uint8_t *b);
void copy32(uint8_t *dst, const uint8_t *src);
bool is_zero32(const uint8_t *p);

/* ---- The instruction being run --------------------------------------------------------- */

/* The most accounts any instruction names (withdraw_swap); the venue's accounts after them
 * are counted but not deserialized. */
#define MAX_NAMED_ACCOUNTS 17

typedef struct {
  SolParameters p;
  /* ka entries that were deserialized: min(p.ka_num, MAX_NAMED_ACCOUNTS); CPIs pass these. */
  uint64_t ka_len;
  /* The Rent sysvar, read on first use (lamports_per_byte_year 0 until then): a deposit
   * creates two accounts and pays for the syscall once. */
  SolRent *rent;
} Ctx;

/* Account checks (accounts.c). `flags` per account: bit 0 signer, bit 1 writable;
 * `names` the ACC_* of each. Returns 0 or the Anchor error. */
#define F_SIGNER 1
#define F_MUT 2
uint64_t check_accounts(const Ctx *ctx, const uint8_t *flags, const uint8_t *names, uint64_t count);
/* The account is the program `id` (InvalidProgramId otherwise). */
uint64_t check_program(const SolAccountInfo *a, const SolPubkey *id, uint64_t name);
/* An account exists: a runtime shows a never-funded address as 0 lamports and no data. */
bool account_exists(const SolAccountInfo *a);
/* An initialized (or frozen) SPL token account: token program's, 165 bytes, state 1 or 2. */
bool is_token_account(const SolAccountInfo *a);
/* Anchor's Account<TokenAccount> with optional token::mint / token::authority (NULL = any). */
uint64_t check_token_account(const SolAccountInfo *a, uint64_t name, const uint8_t *mint, const uint8_t *owner);
/* A token account the program pays into: absent (system-owned, no data) -> *exists = false;
 * otherwise it must be a token account of `mint` owned by `owner` (WrongTokenAccount). */
uint64_t check_receiving_account(const SolAccountInfo *a, const uint8_t *mint, const uint8_t *owner, bool *exists);
/* The tree of `mint`: its PDA, this program's, a TreeAccount of its full size. */
uint64_t load_tree(const Ctx *ctx, const SolAccountInfo *tree, const SolPubkey *mint);
/* Why an account is not the tree of `mint`, in Anchor's order (seeds, existence, owner,
 * discriminator, layout); the canonical search only decides which error to report. */
uint64_t tree_error(const Ctx *ctx, const SolAccountInfo *tree, const SolPubkey *mint);
/* The vault of `mint`: PDA ["vault", mint], a token account of `mint` owned by itself; its bump out.
 * `tree` is the mint's tree, already loaded: it holds the vault's bump. */
uint64_t check_vault(const Ctx *ctx, const uint8_t *tree, const SolAccountInfo *vault, const SolPubkey *mint, uint8_t *bump);

/* ---- PDAs (pda.c) ------------------------------------------------------------------------ */

/* "ProgramDerivedAddress", the last slice of every PDA's hash. */
extern const uint8_t PDA_MARKER[21];

/* Up to 4 seeds; the bump is appended by the functions below. */
typedef struct {
  SolSignerSeed s[5]; /* room for the bump when signing */
  uint64_t n;
} Seeds;

/* The canonical PDA of seeds under program (what findProgramAddressSync gives) and its bump. */
uint64_t pda_find(const Seeds *seeds, const SolPubkey *program, SolPubkey *address, uint8_t *bump);
/* True when `expected` is the canonical PDA of seeds (or the hash at the canonical position
 * lies on the curve: an address nobody can sign for, pda.c); its bump out. */
bool pda_is(const Seeds *seeds, const SolPubkey *program, const SolPubkey *expected, uint8_t *bump);
/* True when `expected` is sha256(seeds ‖ b ‖ program ‖ "ProgramDerivedAddress") for some bump b
 * (found from 255 down, no curve checks; b out): nobody can sign for such an address but this
 * program (off the curve) or no one (on it). For the event authority's signature, and for a
 * deposit receipt, whose bump only its own depositor could pick (deposit.c). */
bool pda_hash_matches(const Seeds *seeds, const SolPubkey *program, const SolPubkey *expected, uint8_t *bump);
/* `expected` is sha256(seeds ‖ bump ‖ program ‖ "ProgramDerivedAddress"): one hash, for a bump
 * this program stored when it created the account at its canonical PDA. */
bool pda_at(const Seeds *seeds, const SolPubkey *program, const SolPubkey *expected, uint8_t bump);
/* The associated token account of (wallet, mint) is `expected`. */
bool is_associated_token_account(const SolPubkey *expected, const uint8_t *wallet, const uint8_t *mint);

/* ---- Field elements and Poseidon (poseidon.c) ---------------------------------------------- */

/* x < r (a canonical field element, big-endian). */
bool is_canonical_field(const uint8_t *x);
/* out = 32-byte big-endian of v. */
void u64_field(uint64_t v, uint8_t out[32]);
/* out = Poseidon(vals[0..n)), BN254 x5, big-endian; 0 or the syscall's refusal. */
uint64_t poseidon(const SolBytes *vals, uint64_t n, uint8_t out[32]);
/* out = Poseidon(a, b). */
uint64_t poseidon2(const uint8_t *a, const uint8_t *b, uint8_t out[32]);
/* out = F(key) = Poseidon(hi, lo): the key's first and last 16 bytes, big-endian (docs/zk.md). */
uint64_t pubkey_field(const uint8_t *key, uint8_t out[32]);

/* ---- Merkle tree in the TreeAccount's data (merkle.c) -------------------------------------- */

/* An empty tree: roots[0] = Z[32], filledSubtrees[i] = Z[i] (the rest of the data zero). */
void tree_init_empty(uint8_t *tree);
/* Inserts leaf at nextIndex (TreeFull at 2^32 - 1), advances the root ring; *index out. */
uint64_t tree_insert(uint8_t *tree, const uint8_t leaf[32], uint64_t *index);
/* root is non-zero and in the ring. */
bool tree_has_root(const uint8_t *tree, const uint8_t root[32]);

/* ---- Sysvars (sysvars.c) -------------------------------------------------------------------- */

/* Rent::minimum_balance(len) from the Rent sysvar. */
uint64_t rent_exempt_minimum(const Ctx *ctx, uint64_t data_len, uint64_t *lamports);
/* The Clock sysvar. */
uint64_t load_clock(SolClock *clock);

/* ---- Cross-program invocations (cpi.c) ------------------------------------------------------ */

/* Anchor's `init` of a PDA: CreateAccount, or for an address someone already sent lamports to,
 * top-up Transfer + Allocate + Assign (so prefunding a PDA cannot block it). `signer` holds
 * the PDA's seeds with its bump. */
typedef struct {
  const Ctx *ctx;
  const SolAccountInfo *payer;
  const SolAccountInfo *account;
  uint64_t space;
  const SolPubkey *owner;
  const SolSignerSeeds *signer;
} CreateAccount;
uint64_t cpi_create_account(const CreateAccount *c);

/* SPL Token Transfer { amount } from source to destination by authority (a PDA when signer != NULL). */
typedef struct {
  const Ctx *ctx;
  const SolAccountInfo *source;
  const SolAccountInfo *destination;
  const SolAccountInfo *authority;
  uint64_t amount;
  const SolSignerSeeds *signer;
} TokenTransfer;
uint64_t cpi_token_transfer(const TokenTransfer *t);

/* SPL Token CloseAccount: account's lamports to destination, by authority (a PDA when signer != NULL). */
typedef struct {
  const Ctx *ctx;
  const SolAccountInfo *account;
  const SolAccountInfo *destination;
  const SolAccountInfo *authority;
  const SolSignerSeeds *signer;
} TokenClose;
uint64_t cpi_token_close(const TokenClose *c);

/* SPL Token InitializeAccount3 { owner } of account for mint. */
uint64_t cpi_initialize_account3(const Ctx *ctx, const SolAccountInfo *account, const SolAccountInfo *mint, const SolPubkey *owner);

/* Associated Token CreateIdempotent: payer (signs), the ATA, its wallet, its mint. */
typedef struct {
  const Ctx *ctx;
  const SolAccountInfo *payer;
  const SolAccountInfo *account;
  const SolAccountInfo *wallet;
  const SolAccountInfo *mint;
} CreateAta;
uint64_t cpi_create_ata(const CreateAta *c);

/* ---- Instructions sysvar (introspection.c) -------------------------------------------------- */

/* withdraw_swap's rules on the transaction's top-level instructions (docs/pool-program.md):
 * the assert_swap_out after it must name these four accounts, first to fourth, and carry this
 * nullifierHash and a minOut of at least min_out. */
typedef struct {
  const Ctx *ctx;
  const SolAccountInfo *sysvar;
  const SolPubkey *relayer;
  const SolPubkey *mint;
  const SolPubkey *escrow;
  const SolPubkey *recipient_output;
  const uint8_t *nullifier_hash;
  uint64_t min_out;
} SwapAssertion;
uint64_t check_swap_assertion(const SwapAssertion *s);

/* ---- Events (events.c) ---------------------------------------------------------------------- */

/* Every event goes out as a CPI to this program (Anchor's emit_cpi!) signed by the event
 * authority PDA with the bump stored in the tree; `event_authority` is the instruction's
 * eventAuthority account. A wrong account there fails the CPI (the runtime derives the signer's
 * address from the seeds), so an event is never silently missing from a transaction that landed. */
typedef struct {
  const Ctx *ctx;
  const uint8_t *tree;
  const SolAccountInfo *event_authority;
} EventSink;

typedef struct {
  const uint8_t *precommitment; /* failed only */
  const uint8_t *commitment;    /* the computed leaf, or 32 zero bytes */
  const uint8_t *depositor;
  uint64_t leaf_index;          /* DepositEvent only */
  uint64_t amount;
  uint64_t slot;
  uint64_t nonce;
  uint64_t reason;              /* 0: DepositEvent; 1 zero, 2 not a field element, 3 duplicate */
} DepositEventFields;
uint64_t emit_deposit(const EventSink *sink, const DepositEventFields *e);

typedef struct {
  const uint8_t *nullifier_hash;
  const uint8_t *recipient;
  uint64_t amount;
  uint64_t fee;
  const uint8_t *relayer;
  const uint8_t *change_commitment;
  uint64_t change_leaf_index;
} WithdrawEventFields;
uint64_t emit_withdraw(const EventSink *sink, const WithdrawEventFields *e);

typedef struct {
  const uint8_t *depositor;
  uint64_t amount;
  uint64_t nonce;
  const uint8_t *revert_nullifier;
} RevertEventFields;
uint64_t emit_revert(const EventSink *sink, const RevertEventFields *e);
/* The event CPI's own handler: succeeds only for the event authority PDA as a signer. */
uint64_t process_event(const Ctx *ctx);
/* The same check on the raw input when it has the event CPI's shape (true, *result set). */
bool event_fast_path(const uint8_t *input, uint64_t *result);

/* ---- Instructions ------------------------------------------------------------------------- */

uint64_t process_initialize_pool(const Ctx *ctx);
uint64_t process_deposit(const Ctx *ctx);
/* withdraw and withdraw_swap (swap = true). */
uint64_t process_withdraw(const Ctx *ctx, bool swap);
uint64_t process_assert_swap_out(const Ctx *ctx);
uint64_t process_revert(const Ctx *ctx);
uint64_t process_extend_pool(const Ctx *ctx);

#endif
