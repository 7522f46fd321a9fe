/*
 * The pool program (docs/pool-program.md, protocol v3): what its files share.
 *
 * The byte layout is layout.h, generated from the codec (src-shared/pool-program/) by
 * tools/pool-layout/gen-layout.ts; the error codes are errors.h. Every discriminator, PDA seed and
 * error code is the codec's; programs/pool/pool-source.test.ts pins them against it. Files by
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
#include "layout.h"
#include "errors.h"

/* Not declared by solana_sdk.h. curve_id 0 = Curve25519 Edwards; returns 0 when the 32
 * bytes are a point on the curve (what Pubkey::is_on_curve tests), 1 when not. */
uint64_t sol_curve_validate_point(uint64_t curve_id, const uint8_t *point, uint8_t *result);
#define CURVE25519_EDWARDS 0

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
