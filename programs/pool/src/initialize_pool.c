/*
 * initialize_pool {} — authority (w,s, payer), mint, tree (w), vault (w), token program,
 * system program. Creates the tree at ["merkle_tree", mint] (empty root Z[32] in slot 0, the
 * signer as the authority allowed to revert) and the vault token account at ["vault", mint],
 * whose token owner is the vault itself. Fails if the tree exists (the System program's
 * AccountAlreadyInUse), so a pool is never re-initialised.
 */
#include "pool.h"

enum { A_AUTHORITY, A_MINT, A_TREE, A_VAULT, A_TOKEN_PROGRAM, A_SYSTEM_PROGRAM, A_COUNT };
static const uint8_t FLAGS[A_COUNT] = {F_SIGNER | F_MUT, 0, F_MUT, F_MUT, 0, 0};
static const uint8_t NAMES[A_COUNT] = {ACC_AUTHORITY, ACC_MINT, ACC_TREE, ACC_VAULT, ACC_TOKEN_PROGRAM, ACC_SYSTEM_PROGRAM};
static const uint8_t SEED_MERKLE_TREE[11] = {'m', 'e', 'r', 'k', 'l', 'e', '_', 't', 'r', 'e', 'e'};
static const uint8_t SEED_VAULT[5] = {'v', 'a', 'u', 'l', 't'};

uint64_t process_initialize_pool(const Ctx *ctx) {
  uint64_t err = check_accounts(ctx, FLAGS, NAMES, A_COUNT);
  if (err != SUCCESS) return err;
  const SolAccountInfo *ka = ctx->p.ka;
  const SolAccountInfo *authority = &ka[A_AUTHORITY];
  const SolAccountInfo *mint = &ka[A_MINT];
  const SolAccountInfo *tree = &ka[A_TREE];
  const SolAccountInfo *vault = &ka[A_VAULT];
  if ((err = check_program(&ka[A_TOKEN_PROGRAM], &TOKEN_PROGRAM_ID, ACC_TOKEN_PROGRAM)) != SUCCESS) return err;
  if ((err = check_program(&ka[A_SYSTEM_PROGRAM], &SYSTEM_PROGRAM_ID, ACC_SYSTEM_PROGRAM)) != SUCCESS) return err;

  uint8_t tree_bump[1], vault_bump[1];
  Seeds tree_seeds = {{{SEED_MERKLE_TREE, sizeof(SEED_MERKLE_TREE)}, {mint->key->x, 32}}, 2};
  Seeds vault_seeds = {{{SEED_VAULT, sizeof(SEED_VAULT)}, {mint->key->x, 32}}, 2};
  if (!pda_is(&tree_seeds, ctx->p.program_id, tree->key, tree_bump)) return anchor_error(AE_CONSTRAINT_SEEDS, ACC_TREE);
  if (!pda_is(&vault_seeds, ctx->p.program_id, vault->key, vault_bump)) return anchor_error(AE_CONSTRAINT_SEEDS, ACC_VAULT);
  /* A real SPL mint (Anchor's Account<Mint>): the vault's InitializeAccount3 needs one. */
  if (!SolPubkey_same(mint->owner, &TOKEN_PROGRAM_ID)) return anchor_error(AE_ACCOUNT_OWNED_BY_WRONG_PROGRAM, ACC_MINT);
  if (mint->data_len != MINT_SIZE || mint->data[MINT_OFF_IS_INITIALIZED] != 1) return anchor_error(AE_ACCOUNT_DID_NOT_DESERIALIZE, ACC_MINT);

  SolClock clock;
  if ((err = load_clock(&clock)) != SUCCESS) return err;

  tree_seeds.s[2].addr = tree_bump;
  tree_seeds.s[2].len = 1;
  SolSignerSeeds tree_signer = {tree_seeds.s, 3};
  CreateAccount create_tree = {ctx, authority, tree, TREE_ACCOUNT_SIZE, ctx->p.program_id, &tree_signer};
  if ((err = cpi_create_account(&create_tree)) != SUCCESS) return err;
  if (tree->data_len != TREE_ACCOUNT_SIZE) return ERROR_ACCOUNT_DATA_TOO_SMALL;

  /* A fresh account is zeroed: only the non-zero fields are written. */
  uint8_t *t = tree->data;
  for (uint64_t i = 0; i < 8; i++) t[i] = DISC_TREE_ACCOUNT[i];
  copy32(t + TREE_OFF_MINT, mint->key->x);
  copy32(t + TREE_OFF_AUTHORITY, authority->key->x);
  tree_init_empty(t);
  wr_u64(t + TREE_OFF_CREATED_SLOT, clock.slot);
  t[TREE_OFF_BUMP] = tree_bump[0];

  vault_seeds.s[2].addr = vault_bump;
  vault_seeds.s[2].len = 1;
  SolSignerSeeds vault_signer = {vault_seeds.s, 3};
  CreateAccount create_vault = {ctx, authority, vault, TOKEN_ACCOUNT_SIZE, &TOKEN_PROGRAM_ID, &vault_signer};
  if ((err = cpi_create_account(&create_vault)) != SUCCESS) return err;
  return cpi_initialize_account3(ctx, vault, mint, vault->key);
}
