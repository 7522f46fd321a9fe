/*
 * assert_swap_out { minOut: u64, nullifierHash: [u8;32] } — relayer (w,s), mint (the pool's),
 * swap escrow (w), recipient's output token account (w), token program. The last instruction
 * of a swap withdrawal (protocol v3): the escrow ["swap_escrow", mint, nullifierHash] that
 * withdraw_swap created holds the route's output. Fails (SwapOutputTooLow) when it holds less
 * than minOut; otherwise moves its whole balance to the recipient's output account, then closes
 * it, rent to the relayer.
 *
 * withdraw_swap has checked, from the Instructions sysvar, that this instruction names its
 * relayer, mint, escrow, nullifierHash and the recipient's output account with minOut at least
 * the proof's. Only the escrow counts: unlike the recipient's balance (v2), no other instruction
 * of the transaction (another withdrawal, a revert to the same wallet) can fill it but the
 * route, so the recipient receives at least minOut from the swap or nothing happens.
 *
 * Transfer first, close second: for wrapped SOL the escrow's token balance is lamports, and
 * closing first would hand them to the relayer.
 */
#include "pool.h"

enum { A_RELAYER, A_MINT, A_ESCROW, A_RECIPIENT_OUTPUT, A_TOKEN_PROGRAM, A_COUNT };
static const uint8_t FLAGS[A_COUNT] = {F_SIGNER | F_MUT, 0, F_MUT, F_MUT, 0};
static const uint8_t NAMES[A_COUNT] = {ACC_RELAYER, ACC_MINT, ACC_SWAP_ESCROW, ACC_RECIPIENT_OUTPUT_TOKEN_ACCOUNT, ACC_TOKEN_PROGRAM};
static const uint8_t SEED_SWAP_ESCROW[11] = {'s', 'w', 'a', 'p', '_', 'e', 's', 'c', 'r', 'o', 'w'};

uint64_t process_assert_swap_out(const Ctx *ctx) {
  uint64_t err = check_accounts(ctx, FLAGS, NAMES, A_COUNT);
  if (err != SUCCESS) return err;
  const SolAccountInfo *ka = ctx->p.ka;
  const SolAccountInfo *escrow = &ka[A_ESCROW];
  const SolAccountInfo *out = &ka[A_RECIPIENT_OUTPUT];
  const uint8_t *nullifier_hash = ctx->p.data + ASO_OFF_NULLIFIER_HASH;
  if ((err = check_program(&ka[A_TOKEN_PROGRAM], &TOKEN_PROGRAM_ID, ACC_TOKEN_PROGRAM)) != SUCCESS) return err;
  uint8_t bump[1];
  Seeds seeds = {{{SEED_SWAP_ESCROW, sizeof(SEED_SWAP_ESCROW)}, {ka[A_MINT].key->x, 32}, {nullifier_hash, 32}}, 3};
  if (!pda_is(&seeds, ctx->p.program_id, escrow->key, bump)) return anchor_error(AE_CONSTRAINT_SEEDS, ACC_SWAP_ESCROW);
  /* Its token owner is itself: only this program, signing with the seeds, moves its funds. */
  if ((err = check_token_account(escrow, ACC_SWAP_ESCROW, NULL, escrow->key->x)) != SUCCESS) return err;
  if ((err = check_token_account(out, ACC_RECIPIENT_OUTPUT_TOKEN_ACCOUNT, escrow->data + TOKEN_OFF_MINT, NULL)) != SUCCESS) return err;
  uint64_t balance = rd_u64(escrow->data + TOKEN_OFF_AMOUNT);
  if (balance < rd_u64(ctx->p.data + ASO_OFF_MIN_OUT)) return pool_error(ERR_SWAP_OUTPUT_TOO_LOW);

  seeds.s[3].addr = bump;
  seeds.s[3].len = 1;
  SolSignerSeeds signer = {seeds.s, 4};
  TokenTransfer pay = {ctx, escrow, out, escrow, balance, &signer};
  if ((err = cpi_token_transfer(&pay)) != SUCCESS) return err;
  TokenClose close = {ctx, escrow, &ka[A_RELAYER], escrow, &signer};
  return cpi_token_close(&close);
}
