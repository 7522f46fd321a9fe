/*
 * Account checks shared by the instructions, in Anchor's terms and order (so a client sees
 * the error an Anchor program would give), and the byte helpers they need.
 *
 * A check never reads past an account's data_len: every layout is length-checked first.
 */
#include "pool.h"

/* ---- Bytes ---------------------------------------------------------------------------------- */

/* Borsh integers sit at odd offsets (a receipt's leafIndex at 121): read them bytewise. */
uint64_t rd_u64(const uint8_t *p) {
  if (((uint64_t)p & 7) == 0) return *(const uint64_t *)p; /* token amounts, most arguments */
  uint64_t v = 0;
  for (uint64_t i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

uint64_t rd_u32(const uint8_t *p) {
  return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
}

uint64_t rd_u16(const uint8_t *p) {
  return (uint64_t)p[0] | (uint64_t)p[1] << 8;
}

void wr_u64(uint8_t *p, uint64_t v) {
  if (((uint64_t)p & 7) == 0) {
    *(uint64_t *)p = v;
    return;
  }
  for (uint64_t i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

void wr_u32(uint8_t *p, uint64_t v) {
  for (uint64_t i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Keys in the input region and in instruction data are 8-aligned: four word compares. The
 * Instructions sysvar's keys are not, and go to the memcmp syscall. */
bool eq32(const void *a, const void *b) {
  if ((((uint64_t)a | (uint64_t)b) & 7) == 0) {
    const uint64_t *x = (const uint64_t *)a, *y = (const uint64_t *)b;
    return x[0] == y[0] && x[1] == y[1] && x[2] == y[2] && x[3] == y[3];
  }
  return sol_memcmp(a, b, 32) == 0;
}

bool eq8(const uint8_t *a, const uint8_t *b) {
  return rd_u64(a) == rd_u64(b);
}

void copy32(uint8_t *dst, const uint8_t *src) {
  if ((((uint64_t)dst | (uint64_t)src) & 7) == 0) {
    uint64_t *x = (uint64_t *)dst;
    const uint64_t *y = (const uint64_t *)src;
    x[0] = y[0];
    x[1] = y[1];
    x[2] = y[2];
    x[3] = y[3];
    return;
  }
  /* Unaligned (event fields after a u32, sysvar keys): the syscall costs 10 CU, a byte loop 150. */
  sol_memcpy(dst, src, 32);
}

bool is_zero32(const uint8_t *p) {
  if (((uint64_t)p & 7) == 0) {
    const uint64_t *w = (const uint64_t *)p;
    return (w[0] | w[1] | w[2] | w[3]) == 0;
  }
  uint64_t acc = 0;
  for (uint64_t i = 0; i < 32; i++) acc |= p[i];
  return acc == 0;
}

/* ---- Accounts ------------------------------------------------------------------------------- */

uint64_t check_accounts(const Ctx *ctx, const uint8_t *flags, const uint8_t *names, uint64_t count) {
  if (ctx->p.ka_num < count) return anchor_error(AE_ACCOUNT_NOT_ENOUGH_KEYS, ACC_NONE);
  for (uint64_t i = 0; i < count; i++) {
    const SolAccountInfo *a = &ctx->p.ka[i];
    if ((flags[i] & F_SIGNER) != 0 && !a->is_signer) return anchor_error(AE_ACCOUNT_NOT_SIGNER, names[i]);
    if ((flags[i] & F_MUT) != 0 && !a->is_writable) return anchor_error(AE_CONSTRAINT_MUT, names[i]);
  }
  return SUCCESS;
}

uint64_t check_program(const SolAccountInfo *a, const SolPubkey *id, uint64_t name) {
  if (!SolPubkey_same(a->key, id)) return anchor_error(AE_INVALID_PROGRAM_ID, name);
  return SUCCESS;
}

bool account_exists(const SolAccountInfo *a) {
  return *a->lamports > 0 || a->data_len > 0;
}

bool is_token_account(const SolAccountInfo *a) {
  if (!SolPubkey_same(a->owner, &TOKEN_PROGRAM_ID) || a->data_len != TOKEN_ACCOUNT_SIZE) return false;
  uint8_t state = a->data[TOKEN_OFF_STATE];
  return state == 1 || state == 2;
}

uint64_t check_token_account(const SolAccountInfo *a, uint64_t name, const uint8_t *mint, const uint8_t *owner) {
  if (!account_exists(a)) return anchor_error(AE_ACCOUNT_NOT_INITIALIZED, name);
  if (!SolPubkey_same(a->owner, &TOKEN_PROGRAM_ID)) return anchor_error(AE_ACCOUNT_OWNED_BY_WRONG_PROGRAM, name);
  if (!is_token_account(a)) return anchor_error(AE_ACCOUNT_DID_NOT_DESERIALIZE, name);
  if (mint != NULL && !eq32(a->data + TOKEN_OFF_MINT, mint)) return anchor_error(AE_CONSTRAINT_TOKEN_MINT, name);
  if (owner != NULL && !eq32(a->data + TOKEN_OFF_OWNER, owner)) return anchor_error(AE_CONSTRAINT_TOKEN_OWNER, name);
  return SUCCESS;
}

/* An SPL token account's owner can be changed (SetAuthority), so the address alone proves
 * nothing: whoever receives funds is read from the account itself. */
uint64_t check_receiving_account(const SolAccountInfo *a, const uint8_t *mint, const uint8_t *owner, bool *exists) {
  if (SolPubkey_same(a->owner, &SYSTEM_PROGRAM_ID) && a->data_len == 0) {
    /* Absent, or only lamports someone sent there: the program creates it. */
    *exists = false;
    return SUCCESS;
  }
  if (!is_token_account(a) || !eq32(a->data + TOKEN_OFF_MINT, mint) || !eq32(a->data + TOKEN_OFF_OWNER, owner)) {
    return pool_error(ERR_WRONG_TOKEN_ACCOUNT);
  }
  *exists = true;
  return SUCCESS;
}

static const uint8_t SEED_MERKLE_TREE[11] = {'m', 'e', 'r', 'k', 'l', 'e', '_', 't', 'r', 'e', 'e'};
static const uint8_t SEED_VAULT[5] = {'v', 'a', 'u', 'l', 't'};

/*
 * Anchor's order: seeds, then existence, owner, discriminator, layout. Only initialize_pool
 * creates TreeAccounts, and only at the canonical PDA of the mint it stores in them; so an
 * account of this program with a TreeAccount's discriminator and size is the PDA of `mint`
 * exactly when its stored mint is `mint`. That comparison replaces the hash (every deposit
 * pays for this check). Anything else goes through the full canonical search, which only
 * decides which error to report.
 */
uint64_t load_tree(const Ctx *ctx, const SolAccountInfo *tree, const SolPubkey *mint) {
  bool ours = SolPubkey_same(tree->owner, ctx->p.program_id);
  bool shaped = tree->data_len == TREE_ACCOUNT_SIZE && eq8(tree->data, DISC_TREE_ACCOUNT);
  if (ours && shaped) {
    if (!eq32(tree->data + TREE_OFF_MINT, mint->x)) return anchor_error(AE_CONSTRAINT_SEEDS, ACC_TREE);
    if (rd_u32(tree->data + TREE_OFF_CURRENT_ROOT_INDEX) >= ROOT_HISTORY_SIZE) return anchor_error(AE_ACCOUNT_DID_NOT_DESERIALIZE, ACC_TREE);
    return SUCCESS;
  }
  return tree_error(ctx, tree, mint);
}

uint64_t tree_error(const Ctx *ctx, const SolAccountInfo *tree, const SolPubkey *mint) {
  Seeds seeds = {{{SEED_MERKLE_TREE, sizeof(SEED_MERKLE_TREE)}, {mint->x, 32}}, 2};
  uint8_t bump;
  if (!pda_is(&seeds, ctx->p.program_id, tree->key, &bump)) return anchor_error(AE_CONSTRAINT_SEEDS, ACC_TREE);
  if (!account_exists(tree)) return anchor_error(AE_ACCOUNT_NOT_INITIALIZED, ACC_TREE);
  if (!SolPubkey_same(tree->owner, ctx->p.program_id)) return anchor_error(AE_ACCOUNT_OWNED_BY_WRONG_PROGRAM, ACC_TREE);
  if (tree->data_len < 8 || !eq8(tree->data, DISC_TREE_ACCOUNT)) return anchor_error(AE_ACCOUNT_DISCRIMINATOR_MISMATCH, ACC_TREE);
  return anchor_error(AE_ACCOUNT_DID_NOT_DESERIALIZE, ACC_TREE);
}

/*
 * initialize_pool created the vault at its canonical PDA and stored that bump in the tree: a
 * valid vault (a token account of `mint` whose token owner is its own address, SPL Token's) is
 * checked with that one hash (~170 CU; every deposit and withdrawal pays this, whatever the
 * mint's bump). Any other account gets the full canonical search first, so the error is
 * Anchor's: seeds before the token checks.
 */
uint64_t check_vault(const Ctx *ctx, const uint8_t *tree, const SolAccountInfo *vault, const SolPubkey *mint, uint8_t *bump) {
  Seeds seeds = {{{SEED_VAULT, sizeof(SEED_VAULT)}, {mint->x, 32}}, 2};
  bool valid = is_token_account(vault) && eq32(vault->data + TOKEN_OFF_MINT, mint->x) && eq32(vault->data + TOKEN_OFF_OWNER, vault->key->x);
  if (valid) {
    *bump = tree[TREE_OFF_VAULT_BUMP];
    if (!pda_at(&seeds, ctx->p.program_id, vault->key, *bump)) return anchor_error(AE_CONSTRAINT_SEEDS, ACC_VAULT);
    return SUCCESS;
  }
  if (!pda_is(&seeds, ctx->p.program_id, vault->key, bump)) return anchor_error(AE_CONSTRAINT_SEEDS, ACC_VAULT);
  /* Its token owner is itself, so only this program can move its funds (signing with the seeds). */
  return check_token_account(vault, ACC_VAULT, mint->x, vault->key->x);
}
