/*
 * deposit { precommitment: [u8;32], amount: u64, nonce: u64 } — depositor (w,s), mint,
 * tree (w), vault (w), depositor token account (w), receipt (w), token program, system
 * program, commitment marker (w), event authority, program.
 *
 * Protocol v2: the leaf is the program's, Poseidon(precommitment, received,
 * F(mint)), where `received` is what the vault's balance grew by in this instruction; nothing
 * the depositor computed is inserted. A precommitment that is zero or not below the field
 * modulus makes no leaf, and a leaf already in the tree (its commitment marker exists) is not
 * inserted twice: the deposit is then `failed`, its funds in the vault, revertable. Less than the
 * pool's minDeposit received fails DepositBelowMinimum and nothing moves: flushing the root ring
 * with 1,000 deposits costs 1,000 minimums.
 *
 * Budget 40k CU (docs/pool-program.md): the 32 Poseidons of the insertion are ~25k and the event's
 * self-CPI ~1.8k, so everything else is kept cheap: F(mint) read from the tree, PDAs by hash with curve
 * checks only where they decide (pda.c), no account data copied.
 */
#include "pool.h"

enum {
  A_DEPOSITOR,
  A_MINT,
  A_TREE,
  A_VAULT,
  A_DEPOSITOR_TOKEN_ACCOUNT,
  A_RECEIPT,
  A_TOKEN_PROGRAM,
  A_SYSTEM_PROGRAM,
  A_COMMITMENT_MARKER,
  A_EVENT_AUTHORITY,
  A_PROGRAM,
  A_COUNT
};
static const uint8_t FLAGS[A_COUNT] = {F_SIGNER | F_MUT, 0, F_MUT, F_MUT, F_MUT, F_MUT, 0, 0, F_MUT, 0, 0};
static const uint8_t NAMES[A_COUNT] = {ACC_DEPOSITOR, ACC_MINT, ACC_TREE, ACC_VAULT, ACC_DEPOSITOR_TOKEN_ACCOUNT, ACC_RECEIPT,
                                       ACC_TOKEN_PROGRAM, ACC_SYSTEM_PROGRAM, ACC_COMMITMENT_MARKER, ACC_EVENT_AUTHORITY, ACC_PROGRAM};
static const uint8_t SEED_DEPOSIT[7] = {'d', 'e', 'p', 'o', 's', 'i', 't'};
static const uint8_t SEED_COMMITMENT[10] = {'c', 'o', 'm', 'm', 'i', 't', 'm', 'e', 'n', 't'};

#define REASON_ZERO 1
#define REASON_NOT_A_FIELD_ELEMENT 2
#define REASON_DUPLICATE 3

/* What the handler carries between its steps (on the heap: more than a stack frame). */
typedef struct {
  uint8_t nonce_le[8];
  uint8_t receipt_bump[1];
  uint8_t marker_bump[1];
  uint8_t vault_bump;
  uint8_t commitment[32] __attribute__((aligned(8)));
  uint8_t amount_field[32];
  uint64_t received;
  uint64_t reason;
  uint64_t leaf_index;
  SolClock clock;
} Deposit;

/* The leaf, or why there is none; checks the commitment marker's address. */
static uint64_t compute_leaf(const Ctx *ctx, Deposit *d) {
  const SolAccountInfo *ka = ctx->p.ka;
  const uint8_t *precommitment = ctx->p.data + 8;
  if (is_zero32(precommitment)) {
    d->reason = REASON_ZERO;
    return SUCCESS;
  }
  if (!is_canonical_field(precommitment)) {
    d->reason = REASON_NOT_A_FIELD_ELEMENT;
    return SUCCESS;
  }
  u64_field(d->received, d->amount_field);
  /* F(mint) as extend_pool stored it in the tree (load_tree proved the tree is this mint's). */
  SolBytes vals[3] = {{precommitment, 32}, {d->amount_field, 32}, {ka[A_TREE].data + TREE_OFF_MINT_FIELD, 32}};
  uint64_t err = poseidon(vals, 3, d->commitment);
  if (err != SUCCESS) return err;
  Seeds seeds = {{{SEED_COMMITMENT, sizeof(SEED_COMMITMENT)}, {ka[A_MINT].key->x, 32}, {d->commitment, 32}}, 3};
  const SolAccountInfo *marker = &ka[A_COMMITMENT_MARKER];
  if (!pda_is(&seeds, ctx->p.program_id, marker->key, d->marker_bump)) return anchor_error(AE_CONSTRAINT_SEEDS, ACC_COMMITMENT_MARKER);
  /* Only this program makes accounts it owns there, and only when it inserts that leaf;
   * lamports someone merely sent to the address do not make it a duplicate. */
  if (SolPubkey_same(marker->owner, ctx->p.program_id)) d->reason = REASON_DUPLICATE;
  return SUCCESS;
}

/* Inserts the leaf and creates its commitment marker (0 bytes, rent paid by the depositor). */
static uint64_t insert_leaf(const Ctx *ctx, Deposit *d) {
  const SolAccountInfo *ka = ctx->p.ka;
  uint64_t err = tree_insert(ka[A_TREE].data, d->commitment, &d->leaf_index);
  if (err != SUCCESS) return err;
  Seeds seeds = {{{SEED_COMMITMENT, sizeof(SEED_COMMITMENT)}, {ka[A_MINT].key->x, 32}, {d->commitment, 32}, {d->marker_bump, 1}}, 4};
  SolSignerSeeds signer = {seeds.s, 4};
  CreateAccount create = {ctx, &ka[A_DEPOSITOR], &ka[A_COMMITMENT_MARKER], 0, ctx->p.program_id, &signer};
  return cpi_create_account(&create);
}

/* The receipt's bytes (after CreateAccount gave it its 134 zero bytes). */
static void write_receipt(const Ctx *ctx, const Deposit *d) {
  const SolAccountInfo *ka = ctx->p.ka;
  uint8_t *r = ka[A_RECEIPT].data;
  bool inserted = d->reason == 0;
  for (uint64_t i = 0; i < 8; i++) r[i] = DISC_DEPOSIT_RECEIPT[i];
  copy32(r + RECEIPT_OFF_MINT, ka[A_MINT].key->x);
  copy32(r + RECEIPT_OFF_DEPOSITOR, ka[A_DEPOSITOR].key->x);
  /* The computed leaf (also of a duplicate); zero when the precommitment made none. */
  copy32(r + RECEIPT_OFF_COMMITMENT, d->commitment);
  wr_u64(r + RECEIPT_OFF_AMOUNT, d->received);
  wr_u64(r + RECEIPT_OFF_NONCE, rd_u64(d->nonce_le));
  r[RECEIPT_OFF_STATUS] = inserted ? RECEIPT_STATUS_INDEXED : RECEIPT_STATUS_FAILED;
  wr_u32(r + RECEIPT_OFF_LEAF_INDEX, inserted ? d->leaf_index : NO_LEAF_INDEX);
  wr_u64(r + RECEIPT_OFF_CREATED_AT, (uint64_t)d->clock.unix_timestamp);
  r[RECEIPT_OFF_BUMP] = d->receipt_bump[0];
}

uint64_t process_deposit(const Ctx *ctx) {
  uint64_t err = check_accounts(ctx, FLAGS, NAMES, A_COUNT);
  if (err != SUCCESS) return err;
  const SolAccountInfo *ka = ctx->p.ka;
  const SolAccountInfo *depositor = &ka[A_DEPOSITOR];
  const SolPubkey *mint = ka[A_MINT].key;
  const SolAccountInfo *tree = &ka[A_TREE];
  const SolAccountInfo *vault = &ka[A_VAULT];
  const SolAccountInfo *receipt = &ka[A_RECEIPT];
  if ((err = check_program(&ka[A_TOKEN_PROGRAM], &TOKEN_PROGRAM_ID, ACC_TOKEN_PROGRAM)) != SUCCESS) return err;
  if ((err = check_program(&ka[A_SYSTEM_PROGRAM], &SYSTEM_PROGRAM_ID, ACC_SYSTEM_PROGRAM)) != SUCCESS) return err;

  Deposit *d = (Deposit *)sol_heap_alloc(sizeof(Deposit));
  if (d == NULL) return ERROR_INVALID_ARGUMENT;
  /* Receipt and events carry 32 zero bytes when the precommitment makes no leaf. */
  u64_field(0, d->commitment);
  for (uint64_t i = 0; i < 8; i++) d->nonce_le[i] = ctx->p.data[48 + i];
  uint64_t amount = rd_u64(ctx->p.data + 40);

  if ((err = load_tree(ctx, tree, mint)) != SUCCESS) return err;
  if ((err = check_vault(ctx, tree->data, vault, mint, &d->vault_bump)) != SUCCESS) return err;
  uint64_t vault_before = rd_u64(vault->data + TOKEN_OFF_AMOUNT);
  err = check_token_account(&ka[A_DEPOSITOR_TOKEN_ACCOUNT], ACC_DEPOSITOR_TOKEN_ACCOUNT, mint->x, depositor->key->x);
  if (err != SUCCESS) return err;
  Seeds receipt_seeds = {{{SEED_DEPOSIT, sizeof(SEED_DEPOSIT)}, {mint->x, 32}, {depositor->key->x, 32}, {d->nonce_le, 8}}, 4};
  /* The receipt's address is checked by hashes alone (no curve checks: ~160 CU less per bump
   * above the canonical one, the bulk of deposit's worst case). A depositor could thus name a
   * receipt at a lower, non-canonical bump (CreateAccount signed with those seeds still proves
   * it a PDA); that harms nobody else: revert accepts the canonical receipt only, so such a
   * deposit can never be reverted, and every client derives the canonical address. */
  if (!pda_hash_matches(&receipt_seeds, ctx->p.program_id, receipt->key, d->receipt_bump)) return anchor_error(AE_CONSTRAINT_SEEDS, ACC_RECEIPT);
  if ((err = load_clock(&d->clock)) != SUCCESS) return err;

  /* Anchor's `init` of the receipt: a nonce used twice fails here (AccountAlreadyInUse). */
  receipt_seeds.s[4].addr = d->receipt_bump;
  receipt_seeds.s[4].len = 1;
  SolSignerSeeds receipt_signer = {receipt_seeds.s, 5};
  CreateAccount create = {ctx, depositor, receipt, RECEIPT_SIZE, ctx->p.program_id, &receipt_signer};
  if ((err = cpi_create_account(&create)) != SUCCESS) return err;
  if (receipt->data_len != RECEIPT_SIZE) return ERROR_ACCOUNT_DATA_TOO_SMALL;

  TokenTransfer pay_in = {ctx, &ka[A_DEPOSITOR_TOKEN_ACCOUNT], vault, depositor, amount, NULL};
  if ((err = cpi_token_transfer(&pay_in)) != SUCCESS) return err;
  /* The leaf is computed from what the vault received, never from a number the depositor chose. */
  d->received = rd_u64(vault->data + TOKEN_OFF_AMOUNT) - vault_before;
  /* What arrived, not what was asked: a fee-charging token cannot slip under the minimum. */
  if (d->received < rd_u64(tree->data + TREE_OFF_MIN_DEPOSIT)) return pool_error(ERR_DEPOSIT_BELOW_MINIMUM);

  if ((err = compute_leaf(ctx, d)) != SUCCESS) return err;
  if (d->reason == 0 && (err = insert_leaf(ctx, d)) != SUCCESS) return err;

  uint8_t *t = tree->data;
  uint64_t total = rd_u64(t + TREE_OFF_TOTAL_DEPOSITED);
  if (total + d->received < total) return ERROR_ARITHMETIC_OVERFLOW;
  wr_u64(t + TREE_OFF_TOTAL_DEPOSITED, total + d->received);
  wr_u64(t + TREE_OFF_DEPOSIT_COUNT, rd_u64(t + TREE_OFF_DEPOSIT_COUNT) + 1);
  write_receipt(ctx, d);

  DepositEventFields event = {ctx->p.data + 8, d->commitment, depositor->key->x, d->leaf_index,
                              d->received, d->clock.slot, rd_u64(d->nonce_le), d->reason};
  EventSink sink = {ctx, t, &ka[A_EVENT_AUTHORITY]};
  return emit_deposit(&sink, &event);
}
