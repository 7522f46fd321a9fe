/*
 * assert_swap_out { requiredBalance: u64 } — recipient's output token account. The last
 * instruction of a swap withdrawal: fails (SwapOutputTooLow) when that token account holds
 * less than requiredBalance. withdraw_swap has checked, from the Instructions sysvar, that this
 * instruction names the recipient's output account with requiredBalance >= its balance before
 * the swap + minOut, so the whole transaction fails unless the recipient got minOut.
 */
#include "pool.h"

static const uint8_t FLAGS[1] = {0};
static const uint8_t NAMES[1] = {ACC_RECIPIENT_OUTPUT_TOKEN_ACCOUNT};

uint64_t process_assert_swap_out(const Ctx *ctx) {
  uint64_t err = check_accounts(ctx, FLAGS, NAMES, 1);
  if (err != SUCCESS) return err;
  const SolAccountInfo *out = &ctx->p.ka[0];
  if ((err = check_token_account(out, ACC_RECIPIENT_OUTPUT_TOKEN_ACCOUNT, NULL, NULL)) != SUCCESS) return err;
  if (rd_u64(out->data + TOKEN_OFF_AMOUNT) < rd_u64(ctx->p.data + 8)) return pool_error(ERR_SWAP_OUTPUT_TOO_LOW);
  return SUCCESS;
}
