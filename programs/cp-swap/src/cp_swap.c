/*
 * cp-swap: the local validator's constant-product swap venue (DESIGN section 6) as an SBF
 * program. Behaviour, errors and logs are those of the TypeScript model
 * tests/oracle/localnet/cp-swap.ts, which the local Jupiter API (src-localnet/rpc/jupiter.ts)
 * builds instructions for.
 *
 * One pool per unordered mint pair: a state account owned by this program at the PDA
 * ["cp_pool", mintA, mintB] (mints sorted by their bytes), 73 bytes:
 *   "cpswap01" | mintA (32) | mintB (32) | bump (1)
 * and two vaults, the pool PDA's associated token accounts of mintA and mintB. The reserves
 * are the vaults' balances. Pools are made by the validator (setAccount), not by an
 * instruction.
 *
 * The one instruction, swap { amountIn: u64, minAmountOut: u64 }: data = 0x01, amountIn LE,
 * minAmountOut LE (17 bytes). Accounts:
 *   0 pool (w)  1 pool's vault of the input mint (w)  2 pool's vault of the output mint (w)
 *   3 user (s)  4 user's source token account (w)  5 destination token account (w, any owner)
 *   6 SPL Token program
 * Takes amountIn from the source (SPL Token Transfer, the user signs), then pays
 *   floor(amountIn*997*rOut / (rIn*1000 + amountIn*997))
 * from the output vault (Transfer signed by the pool PDA) to the destination, and logs
 *   Program log: swap <amountIn> <inputMint> -> <amountOut> <outputMint>
 *
 * Refusals, in the model's order (the C program checks two things the model does not: the
 * vaults' token owner is the pool, and the pool's stored mints and bump derive its address,
 * since the pool signs with exactly those seeds; only setAccount can make a state that fails
 * them):
 *   data not 17 bytes or tag not 1 ........................ InvalidInstructionData (builtin)
 *   fewer than 7 accounts .................................. NotEnoughAccountKeys (builtin)
 *   account 6 is not the SPL Token program ................. IncorrectProgramId (builtin)
 *   pool not owned by this program, not 73 bytes, wrong magic, or not the PDA of its stored
 *   mints and bump; a vault not an SPL token account, not of the pool's two distinct mints,
 *   not the pool PDA's associated token account, or not owned by the pool ..... 6002 InvalidPool
 *   source / destination not a token account of the input / output mint . 6003 InvalidTokenAccount
 *   amountIn == 0 ............................................................. 6004 ZeroAmount
 *   a reserve is empty ...................................................... 6000 EmptyReserve
 *   output below minAmountOut ...................................... 6001 SlippageToleranceExceeded
 *   user did not sign ................................... MissingRequiredSignature (builtin)
 * Each custom error first logs `Program log: Error: <Name>`.
 */
#include <solana_sdk.h>
#include "cp_math.h"

#define CP_ACCOUNTS 7
#define CP_POOL_SIZE 73
#define CP_SWAP_TAG 1
#define CP_SWAP_DATA_LEN 17

/* SPL token account layout (165 bytes) */
#define TOKEN_ACCOUNT_SIZE 165
#define TOKEN_ACCOUNT_MINT 0
#define TOKEN_ACCOUNT_OWNER 32
#define TOKEN_ACCOUNT_AMOUNT 64
#define TOKEN_ACCOUNT_STATE 108
#define TOKEN_TRANSFER_TAG 3

#define ERR_EMPTY_RESERVE 6000
#define ERR_SLIPPAGE 6001
#define ERR_INVALID_POOL 6002
#define ERR_INVALID_TOKEN_ACCOUNT 6003
#define ERR_ZERO_AMOUNT 6004

/* TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA */
static const SolPubkey TOKEN_PROGRAM_ID __attribute__((aligned(8))) = {{
  0x06, 0xdd, 0xf6, 0xe1, 0xd7, 0x65, 0xa1, 0x93, 0xd9, 0xcb, 0xe1, 0x46, 0xce, 0xeb, 0x79, 0xac,
  0x1c, 0xb4, 0x85, 0xed, 0x5f, 0x5b, 0x37, 0x91, 0x3a, 0x8c, 0xf5, 0x85, 0x7e, 0xff, 0x00, 0xa9,
}};

/* ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL */
static const SolPubkey ASSOCIATED_TOKEN_PROGRAM_ID __attribute__((aligned(8))) = {{
  0x8c, 0x97, 0x25, 0x8f, 0x4e, 0x24, 0x89, 0xf1, 0xbb, 0x3d, 0x10, 0x29, 0x14, 0x8e, 0x0d, 0x83,
  0x0b, 0x5a, 0x13, 0x99, 0xda, 0xff, 0x10, 0x84, 0x04, 0x8e, 0x7b, 0xd8, 0xdb, 0xe9, 0xf8, 0x59,
}};

static const uint8_t POOL_MAGIC[8] = {'c', 'p', 's', 'w', 'a', 'p', '0', '1'};
static const uint8_t POOL_SEED[7] = {'c', 'p', '_', 'p', 'o', 'o', 'l'};

/* Logs `Error: <name>` and returns Custom(code). */
static uint64_t __attribute__((noinline)) fail(uint64_t code) {
  switch (code) {
    case ERR_EMPTY_RESERVE: sol_log("Error: EmptyReserve"); break;
    case ERR_SLIPPAGE: sol_log("Error: SlippageToleranceExceeded"); break;
    case ERR_INVALID_POOL: sol_log("Error: InvalidPool"); break;
    case ERR_INVALID_TOKEN_ACCOUNT: sol_log("Error: InvalidTokenAccount"); break;
    default: sol_log("Error: ZeroAmount"); break;
  }
  return ERROR_CUSTOM(code);
}

/* A little-endian u64 at any alignment. */
static uint64_t read_u64(const uint8_t *p) {
  uint64_t v = 0;
  for (uint64_t i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

static bool key_eq(const SolPubkey *a, const uint8_t *b) {
  return SolPubkey_same(a, (const SolPubkey *)b);
}

/* An initialized (or frozen) SPL token account: owned by the token program, 165 bytes, state 1 or 2. */
static bool is_token_account(const SolAccountInfo *a) {
  if (!SolPubkey_same(a->owner, &TOKEN_PROGRAM_ID) || a->data_len != TOKEN_ACCOUNT_SIZE) return false;
  uint8_t state = a->data[TOKEN_ACCOUNT_STATE];
  return state == 1 || state == 2;
}

/* True when `vault` is the associated token account of (pool, mint) under the SPL Token program. */
static bool __attribute__((noinline)) is_pool_ata(const SolPubkey *vault, const SolPubkey *pool, const uint8_t *mint) {
  SolSignerSeed seeds[3] = {
    {pool->x, SIZE_PUBKEY},
    {TOKEN_PROGRAM_ID.x, SIZE_PUBKEY},
    {mint, SIZE_PUBKEY},
  };
  SolPubkey derived;
  uint8_t bump;
  if (sol_try_find_program_address(seeds, 3, &ASSOCIATED_TOKEN_PROGRAM_ID, &derived, &bump) != 0) return false;
  return SolPubkey_same(&derived, vault);
}

/* SPL Token Transfer { amount } of `source` to `destination` by `authority`, optionally signed by a PDA. */
typedef struct {
  const SolAccountInfo *token_program;
  const SolAccountInfo *source;
  const SolAccountInfo *destination;
  const SolAccountInfo *authority;
  uint64_t amount;
  const SolSignerSeeds *signer; /* NULL: the authority signed the transaction */
} Transfer;

static uint64_t __attribute__((noinline)) transfer(const Transfer *t) {
  uint8_t data[9];
  data[0] = TOKEN_TRANSFER_TAG;
  for (uint64_t i = 0; i < 8; i++) data[1 + i] = (uint8_t)(t->amount >> (8 * i));
  /* the caller's writable flags pass through: a read-only account fails in the runtime as it would for the model */
  SolAccountMeta metas[3] = {
    {t->source->key, t->source->is_writable, false},
    {t->destination->key, t->destination->is_writable, false},
    {t->authority->key, false, true},
  };
  SolInstruction ix = {t->token_program->key, metas, 3, data, 9};
  SolAccountInfo infos[3] = {*t->source, *t->destination, *t->authority};
  return sol_invoke_signed(&ix, infos, 3, t->signer, t->signer == NULL ? 0 : 1);
}

/* Appends n bytes of src at out + *len. */
static void append(char *out, uint64_t *len, const char *src, uint64_t n) {
  for (uint64_t i = 0; i < n; i++) out[*len + i] = src[i];
  *len += n;
}

/* Program log: swap <in> <inputMint> -> <out> <outputMint> */
static void __attribute__((noinline)) log_swap(uint64_t amount_in, const SolPubkey *input_mint, uint64_t amount_out,
                                               const SolPubkey *output_mint) {
  char line[5 + 20 + 1 + 44 + 4 + 20 + 1 + 44];
  uint64_t n = 0;
  append(line, &n, "swap ", 5);
  n += cp_fmt_u64(amount_in, line + n);
  line[n++] = ' ';
  n += cp_fmt_base58(input_mint, line + n);
  append(line, &n, " -> ", 4);
  n += cp_fmt_u64(amount_out, line + n);
  line[n++] = ' ';
  n += cp_fmt_base58(output_mint, line + n);
  sol_log_(line, n);
}

/* Pool account checks: owned by this program, 73 bytes, magic, PDA of its stored mints and bump. */
static bool __attribute__((noinline)) is_pool(const SolAccountInfo *pool, const SolPubkey *program_id) {
  if (!SolPubkey_same(pool->owner, program_id) || pool->data_len != CP_POOL_SIZE) return false;
  const uint8_t *d = pool->data;
  if (read_u64(d) != read_u64(POOL_MAGIC)) return false;
  SolSignerSeed seeds[4] = {
    {POOL_SEED, sizeof(POOL_SEED)},
    {d + 8, SIZE_PUBKEY},
    {d + 40, SIZE_PUBKEY},
    {d + 72, 1},
  };
  SolPubkey derived;
  if (sol_create_program_address(seeds, 4, program_id, &derived) != 0) return false;
  return SolPubkey_same(&derived, pool->key);
}

static uint64_t __attribute__((noinline)) swap(SolParameters *params) {
  const uint8_t *data = params->data;
  if (params->data_len != CP_SWAP_DATA_LEN || data[0] != CP_SWAP_TAG) return ERROR_INVALID_INSTRUCTION_DATA;
  uint64_t amount_in = read_u64(data + 1);
  uint64_t min_amount_out = read_u64(data + 9);
  sol_log("Instruction: Swap");
  if (params->ka_num < CP_ACCOUNTS) return ERROR_NOT_ENOUGH_ACCOUNT_KEYS;
  const SolAccountInfo *ka = params->ka;
  const SolAccountInfo *pool = &ka[0];
  const SolAccountInfo *vault_in = &ka[1];
  const SolAccountInfo *vault_out = &ka[2];
  const SolAccountInfo *user = &ka[3];
  const SolAccountInfo *source = &ka[4];
  const SolAccountInfo *destination = &ka[5];
  const SolAccountInfo *token_program = &ka[6];
  if (!SolPubkey_same(token_program->key, &TOKEN_PROGRAM_ID)) return ERROR_INCORRECT_PROGRAM_ID;

  if (!is_pool(pool, params->program_id)) return fail(ERR_INVALID_POOL);
  const uint8_t *mint_a = pool->data + 8;
  const uint8_t *mint_b = pool->data + 40;
  if (!is_token_account(vault_in) || !is_token_account(vault_out)) return fail(ERR_INVALID_POOL);
  const SolPubkey *input_mint = (const SolPubkey *)(vault_in->data + TOKEN_ACCOUNT_MINT);
  const SolPubkey *output_mint = (const SolPubkey *)(vault_out->data + TOKEN_ACCOUNT_MINT);
  bool pair = (key_eq(input_mint, mint_a) && key_eq(output_mint, mint_b)) ||
              (key_eq(input_mint, mint_b) && key_eq(output_mint, mint_a));
  if (!pair || SolPubkey_same(input_mint, output_mint)) return fail(ERR_INVALID_POOL);
  /* the vaults hold the pool's tokens: owned by the pool PDA, at its associated token addresses */
  if (!key_eq(pool->key, vault_in->data + TOKEN_ACCOUNT_OWNER) || !key_eq(pool->key, vault_out->data + TOKEN_ACCOUNT_OWNER)) {
    return fail(ERR_INVALID_POOL);
  }
  if (!is_pool_ata(vault_in->key, pool->key, input_mint->x) || !is_pool_ata(vault_out->key, pool->key, output_mint->x)) {
    return fail(ERR_INVALID_POOL);
  }
  if (!is_token_account(source) || !SolPubkey_same((const SolPubkey *)(source->data + TOKEN_ACCOUNT_MINT), input_mint)) {
    return fail(ERR_INVALID_TOKEN_ACCOUNT);
  }
  if (!is_token_account(destination) ||
      !SolPubkey_same((const SolPubkey *)(destination->data + TOKEN_ACCOUNT_MINT), output_mint)) {
    return fail(ERR_INVALID_TOKEN_ACCOUNT);
  }
  if (amount_in == 0) return fail(ERR_ZERO_AMOUNT);
  uint64_t reserve_in = read_u64(vault_in->data + TOKEN_ACCOUNT_AMOUNT);
  uint64_t reserve_out = read_u64(vault_out->data + TOKEN_ACCOUNT_AMOUNT);
  if (reserve_in == 0 || reserve_out == 0) return fail(ERR_EMPTY_RESERVE);
  uint64_t amount_out = cp_amount_out(amount_in, reserve_in, reserve_out);
  if (amount_out < min_amount_out) return fail(ERR_SLIPPAGE);
  if (!user->is_signer) return ERROR_MISSING_REQUIRED_SIGNATURES;

  /* keep the mints: the log names them after the transfers */
  SolPubkey in_mint = *input_mint;
  SolPubkey out_mint = *output_mint;

  Transfer t = {token_program, source, vault_in, user, amount_in, NULL};
  uint64_t r = transfer(&t);
  if (r != SUCCESS) return r;

  SolSignerSeed seeds[4] = {
    {POOL_SEED, sizeof(POOL_SEED)},
    {mint_a, SIZE_PUBKEY},
    {mint_b, SIZE_PUBKEY},
    {pool->data + 72, 1},
  };
  SolSignerSeeds signer = {seeds, 4};
  Transfer p = {token_program, vault_out, destination, pool, amount_out, &signer};
  r = transfer(&p);
  if (r != SUCCESS) return r;

  log_swap(amount_in, &in_mint, amount_out, &out_mint);
  return SUCCESS;
}

uint64_t entrypoint(const uint8_t *input) {
  SolAccountInfo *ka = (SolAccountInfo *)sol_heap_alloc(sizeof(SolAccountInfo) * CP_ACCOUNTS);
  SolParameters params;
  params.ka = ka;
  if (ka == NULL || !sol_deserialize(input, &params, CP_ACCOUNTS)) return ERROR_INVALID_ARGUMENT;
  return swap(&params);
}
