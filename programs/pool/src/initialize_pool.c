/*
 * initialize_pool { minDeposit: u64 } — authority (w,s, payer), mint, tree (w), vault (w), token
 * program, system program, program data. Creates the tree at ["merkle_tree", mint] (empty root
 * Z[32] in slot 0, the signer as the authority allowed to revert, minDeposit, the event
 * authority's bump) at TREE_INITIAL_SIZE bytes, which extend_pool grows to its full size, and
 * the vault token account at ["vault", mint], whose token owner is the vault itself. Fails if
 * the tree exists (the System program's AccountAlreadyInUse), so a pool is never re-initialised.
 *
 * Only the program's upgrade authority may call it (issue 25: whoever initialized a mint's pool
 * first became its revert authority for good). The authority is read from the program's
 * ProgramData account rather than fixed at build time, so the committed pool.so stays one
 * binary for every deployment; a program whose upgrade authority was dropped can make no new
 * pools (NotAuthority), which is what an immutable deployment should mean.
 */
#include "pool.h"

enum { A_AUTHORITY, A_MINT, A_TREE, A_VAULT, A_TOKEN_PROGRAM, A_SYSTEM_PROGRAM, A_PROGRAM_DATA, A_COUNT };
static const uint8_t FLAGS[A_COUNT] = {F_SIGNER | F_MUT, 0, F_MUT, F_MUT, 0, 0, 0};
static const uint8_t NAMES[A_COUNT] = {ACC_AUTHORITY, ACC_MINT, ACC_TREE, ACC_VAULT, ACC_TOKEN_PROGRAM, ACC_SYSTEM_PROGRAM, ACC_PROGRAM_DATA};
static const uint8_t SEED_MERKLE_TREE[11] = {'m', 'e', 'r', 'k', 'l', 'e', '_', 't', 'r', 'e', 'e'};
static const uint8_t SEED_VAULT[5] = {'v', 'a', 'u', 'l', 't'};

/* ProgramData = PDA([program id], upgradeable loader), the loader's, state ProgramData, with
 * Some(upgrade authority) equal to the signer. The address is checked first (ConstraintSeeds):
 * any other account could carry a forged header. */
static uint64_t check_upgrade_authority(const Ctx *ctx, const SolAccountInfo *program_data, const SolPubkey *authority) {
  Seeds seeds = {{{ctx->p.program_id->x, 32}}, 1};
  uint8_t bump;
  if (!pda_is(&seeds, &BPF_LOADER_UPGRADEABLE_ID, program_data->key, &bump)) return anchor_error(AE_CONSTRAINT_SEEDS, ACC_PROGRAM_DATA);
  const uint8_t *d = program_data->data;
  bool ok = SolPubkey_same(program_data->owner, &BPF_LOADER_UPGRADEABLE_ID) && program_data->data_len >= PROGRAM_DATA_HEADER_SIZE &&
            rd_u32(d) == PROGRAM_DATA_STATE && d[PROGRAM_DATA_OFF_AUTHORITY_TAG] == 1 &&
            sol_memcmp(d + PROGRAM_DATA_OFF_AUTHORITY, authority->x, 32) == 0;
  if (!ok) return pool_error(ERR_NOT_AUTHORITY);
  return SUCCESS;
}

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
  if ((err = check_upgrade_authority(ctx, &ka[A_PROGRAM_DATA], authority->key)) != SUCCESS) return err;
  uint64_t min_deposit = rd_u64(ctx->p.data + 8);
  /* 0 would let zero-amount deposits flush the root ring for the price of their fees. */
  if (min_deposit == 0) return pool_error(ERR_INVALID_INPUT);

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
  /* Stored so that every event CPI signs without a search (events.c). */
  Seeds event_seeds = {{{SEED_EVENT_AUTHORITY, sizeof(SEED_EVENT_AUTHORITY)}}, 1};
  SolPubkey event_authority;
  uint8_t event_bump;
  if ((err = pda_find(&event_seeds, ctx->p.program_id, &event_authority, &event_bump)) != SUCCESS) return err;

  tree_seeds.s[2].addr = tree_bump;
  tree_seeds.s[2].len = 1;
  SolSignerSeeds tree_signer = {tree_seeds.s, 3};
  CreateAccount create_tree = {ctx, authority, tree, TREE_INITIAL_SIZE, ctx->p.program_id, &tree_signer};
  if ((err = cpi_create_account(&create_tree)) != SUCCESS) return err;
  if (tree->data_len != TREE_INITIAL_SIZE) return ERROR_ACCOUNT_DATA_TOO_SMALL;

  /* A fresh account is zeroed: only the non-zero fields are written. */
  uint8_t *t = tree->data;
  for (uint64_t i = 0; i < 8; i++) t[i] = DISC_TREE_ACCOUNT[i];
  copy32(t + TREE_OFF_MINT, mint->key->x);
  copy32(t + TREE_OFF_AUTHORITY, authority->key->x);
  tree_init_empty(t);
  wr_u64(t + TREE_OFF_CREATED_SLOT, clock.slot);
  wr_u64(t + TREE_OFF_MIN_DEPOSIT, min_deposit);
  t[TREE_OFF_BUMP] = tree_bump[0];
  t[TREE_OFF_EVENT_AUTHORITY_BUMP] = event_bump;
  t[TREE_OFF_VAULT_BUMP] = vault_bump[0];

  vault_seeds.s[2].addr = vault_bump;
  vault_seeds.s[2].len = 1;
  SolSignerSeeds vault_signer = {vault_seeds.s, 3};
  CreateAccount create_vault = {ctx, authority, vault, TOKEN_ACCOUNT_SIZE, &TOKEN_PROGRAM_ID, &vault_signer};
  if ((err = cpi_create_account(&create_vault)) != SUCCESS) return err;
  return cpi_initialize_account3(ctx, vault, mint, vault->key);
}
