/*
 * revert { nonce: u64 } — authority (w,s) (must equal tree.authority), mint, tree (w), vault (w),
 * depositor, depositor token account (w), receipt (w), revert marker (w), token program,
 * system program, event authority, program. The reverted amount leaves totalDeposited again. A failed deposit (zero or non-canonical precommitment, duplicate leaf) is paid
 * back to its depositor once: the receipt becomes `reverted` and the revert marker, a
 * NullifierAccount of kind revert at ["nullifier", mint, revertNullifier] with revertNullifier
 * = F(receipt address), is created (a second revert: NullifierSpent).
 */
#include "pool.h"

enum {
  A_AUTHORITY,
  A_MINT,
  A_TREE,
  A_VAULT,
  A_DEPOSITOR,
  A_DEPOSITOR_TOKEN_ACCOUNT,
  A_RECEIPT,
  A_REVERT_MARKER,
  A_TOKEN_PROGRAM,
  A_SYSTEM_PROGRAM,
  A_EVENT_AUTHORITY,
  A_PROGRAM,
  A_COUNT
};
static const uint8_t FLAGS[A_COUNT] = {F_SIGNER | F_MUT, 0, F_MUT, F_MUT, 0, F_MUT, F_MUT, F_MUT, 0, 0, 0, 0};
static const uint8_t NAMES[A_COUNT] = {ACC_AUTHORITY, ACC_MINT, ACC_TREE, ACC_VAULT, ACC_DEPOSITOR, ACC_DEPOSITOR_TOKEN_ACCOUNT,
                                       ACC_RECEIPT, ACC_REVERT_MARKER, ACC_TOKEN_PROGRAM, ACC_SYSTEM_PROGRAM, ACC_EVENT_AUTHORITY, ACC_PROGRAM};
static const uint8_t SEED_DEPOSIT[7] = {'d', 'e', 'p', 'o', 's', 'i', 't'};
static const uint8_t SEED_NULLIFIER[9] = {'n', 'u', 'l', 'l', 'i', 'f', 'i', 'e', 'r'};
static const uint8_t SEED_VAULT[5] = {'v', 'a', 'u', 'l', 't'};

typedef struct {
  uint8_t revert_nullifier[32] __attribute__((aligned(8)));
  uint8_t vault_bump[1];
  uint8_t marker_bump[1];
  uint8_t receipt_bump[1];
} Revert;

/* Anchor's Account<DepositReceipt> at its PDA. */
static uint64_t load_receipt(const Ctx *ctx, Revert *r) {
  const SolAccountInfo *ka = ctx->p.ka;
  const SolAccountInfo *receipt = &ka[A_RECEIPT];
  Seeds seeds = {{{SEED_DEPOSIT, sizeof(SEED_DEPOSIT)}, {ka[A_MINT].key->x, 32}, {ka[A_DEPOSITOR].key->x, 32}, {ctx->p.data + 8, 8}}, 4};
  if (!pda_is(&seeds, ctx->p.program_id, receipt->key, r->receipt_bump)) return anchor_error(AE_CONSTRAINT_SEEDS, ACC_RECEIPT);
  if (!account_exists(receipt)) return anchor_error(AE_ACCOUNT_NOT_INITIALIZED, ACC_RECEIPT);
  if (!SolPubkey_same(receipt->owner, ctx->p.program_id)) return anchor_error(AE_ACCOUNT_OWNED_BY_WRONG_PROGRAM, ACC_RECEIPT);
  if (receipt->data_len < 8 || !eq8(receipt->data, DISC_DEPOSIT_RECEIPT)) return anchor_error(AE_ACCOUNT_DISCRIMINATOR_MISMATCH, ACC_RECEIPT);
  if (receipt->data_len != RECEIPT_SIZE || receipt->data[RECEIPT_OFF_STATUS] > RECEIPT_STATUS_REVERTED) {
    return anchor_error(AE_ACCOUNT_DID_NOT_DESERIALIZE, ACC_RECEIPT);
  }
  return SUCCESS;
}

static uint64_t create_marker(const Ctx *ctx, Revert *r) {
  const SolAccountInfo *ka = ctx->p.ka;
  const SolAccountInfo *marker = &ka[A_REVERT_MARKER];
  Seeds seeds = {{{SEED_NULLIFIER, sizeof(SEED_NULLIFIER)}, {ka[A_MINT].key->x, 32}, {r->revert_nullifier, 32}, {r->marker_bump, 1}}, 4};
  SolSignerSeeds signer = {seeds.s, 4};
  CreateAccount create = {ctx, &ka[A_AUTHORITY], marker, NULLIFIER_ACCOUNT_SIZE, ctx->p.program_id, &signer};
  uint64_t err = cpi_create_account(&create);
  if (err != SUCCESS) return err;
  if (marker->data_len != NULLIFIER_ACCOUNT_SIZE) return ERROR_ACCOUNT_DATA_TOO_SMALL;
  SolClock clock;
  if ((err = load_clock(&clock)) != SUCCESS) return err;
  uint8_t *n = marker->data;
  for (uint64_t i = 0; i < 8; i++) n[i] = DISC_NULLIFIER_ACCOUNT[i];
  copy32(n + 8, ka[A_MINT].key->x);
  copy32(n + 40, r->revert_nullifier);
  n[72] = NULLIFIER_KIND_REVERT;
  wr_u64(n + 73, clock.slot);
  return SUCCESS;
}

uint64_t process_revert(const Ctx *ctx) {
  uint64_t err = check_accounts(ctx, FLAGS, NAMES, A_COUNT);
  if (err != SUCCESS) return err;
  const SolAccountInfo *ka = ctx->p.ka;
  const SolPubkey *mint = ka[A_MINT].key;
  const SolAccountInfo *vault = &ka[A_VAULT];
  const SolAccountInfo *receipt = &ka[A_RECEIPT];
  if ((err = check_program(&ka[A_TOKEN_PROGRAM], &TOKEN_PROGRAM_ID, ACC_TOKEN_PROGRAM)) != SUCCESS) return err;
  if ((err = check_program(&ka[A_SYSTEM_PROGRAM], &SYSTEM_PROGRAM_ID, ACC_SYSTEM_PROGRAM)) != SUCCESS) return err;
  Revert *r = (Revert *)sol_heap_alloc(sizeof(Revert));
  if (r == NULL) return ERROR_INVALID_ARGUMENT;

  if ((err = load_tree(ctx, &ka[A_TREE], mint)) != SUCCESS) return err;
  if (!eq32(ka[A_TREE].data + TREE_OFF_AUTHORITY, ka[A_AUTHORITY].key->x)) return pool_error(ERR_NOT_AUTHORITY);
  if ((err = check_vault(ctx, ka[A_TREE].data, vault, mint, r->vault_bump)) != SUCCESS) return err;
  if ((err = load_receipt(ctx, r)) != SUCCESS) return err;
  const uint8_t *depositor = ka[A_DEPOSITOR].key->x;
  err = check_token_account(&ka[A_DEPOSITOR_TOKEN_ACCOUNT], ACC_DEPOSITOR_TOKEN_ACCOUNT, mint->x, depositor);
  if (err != SUCCESS) return err;
  if ((err = pubkey_field(receipt->key->x, r->revert_nullifier)) != SUCCESS) return err;
  Seeds seeds = {{{SEED_NULLIFIER, sizeof(SEED_NULLIFIER)}, {mint->x, 32}, {r->revert_nullifier, 32}}, 3};
  if (!pda_is(&seeds, ctx->p.program_id, ka[A_REVERT_MARKER].key, r->marker_bump)) return anchor_error(AE_CONSTRAINT_SEEDS, ACC_REVERT_MARKER);

  /* The revert rules in the relay's order (src-server/core/revert/rules.ts): the depositor's own
   * deposit, not inserted, not reverted yet. */
  uint8_t *rd = receipt->data;
  uint64_t status = rd[RECEIPT_OFF_STATUS];
  if (!eq32(rd + RECEIPT_OFF_DEPOSITOR, depositor) || status == RECEIPT_STATUS_INDEXED) return pool_error(ERR_NOT_REVERTABLE);
  if (status == RECEIPT_STATUS_REVERTED || SolPubkey_same(ka[A_REVERT_MARKER].owner, ctx->p.program_id)) return pool_error(ERR_NULLIFIER_SPENT);
  uint64_t amount = rd_u64(rd + RECEIPT_OFF_AMOUNT);
  if (rd_u64(vault->data + TOKEN_OFF_AMOUNT) < amount) return pool_error(ERR_INSUFFICIENT_VAULT);

  Seeds vault_seeds = {{{SEED_VAULT, sizeof(SEED_VAULT)}, {mint->x, 32}, {r->vault_bump, 1}}, 3};
  SolSignerSeeds signer = {vault_seeds.s, 3};
  TokenTransfer pay_back = {ctx, vault, &ka[A_DEPOSITOR_TOKEN_ACCOUNT], vault, amount, &signer};
  if ((err = cpi_token_transfer(&pay_back)) != SUCCESS) return err;
  rd[RECEIPT_OFF_STATUS] = RECEIPT_STATUS_REVERTED;
  if ((err = create_marker(ctx, r)) != SUCCESS) return err;
  /* The deposit added what the vault received; the same amount goes back out of the total. */
  uint8_t *t = ka[A_TREE].data;
  uint64_t total = rd_u64(t + TREE_OFF_TOTAL_DEPOSITED);
  if (total < amount) return ERROR_ARITHMETIC_OVERFLOW;
  wr_u64(t + TREE_OFF_TOTAL_DEPOSITED, total - amount);

  RevertEventFields event = {depositor, amount, rd_u64(ctx->p.data + 8), r->revert_nullifier};
  EventSink sink = {ctx, t, &ka[A_EVENT_AUTHORITY]};
  return emit_revert(&sink, &event);
}
