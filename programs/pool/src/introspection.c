/*
 * withdraw_swap's guarantee, read from the Instructions sysvar (agave's layout, as LiteSVM
 * and every validator serialize it; all integers u16 little-endian):
 *
 *   count ‖ offset per instruction ‖ instructions ‖ index of the instruction being executed
 *   instruction = account count ‖ (flags u8, key 32) per account ‖ program id 32 ‖ data len ‖ data
 *
 * The transaction must hold exactly one withdraw_swap of this program (the one running, at
 * top level) and, after it, exactly one assert_swap_out of this program whose first four
 * accounts are this relayer, this mint, this withdrawal's escrow and the recipient's output
 * token account, whose nullifierHash is this withdrawal's, and whose minOut is at least the
 * proof's. assert_swap_out pays the recipient out of the escrow alone, which only the route
 * fills: whatever else the transaction does (another withdrawal to the same wallet, a revert),
 * the recipient ends up with at least minOut from the swap, or nothing happens. Every read is
 * bounds-checked against the sysvar's length first: a malformed sysvar is
 * AccountDidNotDeserialize, never a read past the data.
 */
#include "pool.h"

typedef struct {
  uint64_t withdraw_swaps;
  bool current_is_withdraw_swap;
  uint64_t asserts;
  uint64_t assert_index;
  const uint8_t *assert_data; /* its data (length in assert_len) */
  uint64_t assert_len;
  const uint8_t *assert_keys; /* its first account's key; account i's is 33 i further */
  uint64_t assert_account_count;
} Scan;

/* One instruction at `at`; fills *scan. false when it runs past the data. */
static bool scan_instruction(const SwapAssertion *s, uint64_t index, uint64_t current, uint64_t at, Scan *scan) {
  const uint8_t *d = s->sysvar->data;
  uint64_t len = s->sysvar->data_len;
  if (at + 2 > len) return false;
  uint64_t accounts = rd_u16(d + at);
  at += 2;
  uint64_t first_account = at + 1;
  if (at + 33 * accounts + 32 + 2 > len) return false;
  at += 33 * accounts;
  const uint8_t *program = d + at;
  uint64_t data_len = rd_u16(d + at + 32);
  const uint8_t *data = d + at + 34;
  if (at + 34 + data_len > len) return false;
  /* Another program's instruction with the same bytes does not count. */
  if (data_len < 8 || !eq32(program, s->ctx->p.program_id->x)) return true;
  if (eq8(data, DISC_IX_WITHDRAW_SWAP)) {
    scan->withdraw_swaps++;
    if (index == current) scan->current_is_withdraw_swap = true;
  } else if (eq8(data, DISC_IX_ASSERT_SWAP_OUT)) {
    scan->asserts++;
    scan->assert_index = index;
    scan->assert_data = data;
    scan->assert_len = data_len;
    scan->assert_keys = d + first_account;
    scan->assert_account_count = accounts;
  }
  return true;
}

uint64_t check_swap_assertion(const SwapAssertion *s) {
  const uint8_t *d = s->sysvar->data;
  uint64_t len = s->sysvar->data_len;
  if (len < 2) return anchor_error(AE_ACCOUNT_DID_NOT_DESERIALIZE, ACC_INSTRUCTIONS_SYSVAR);
  uint64_t count = rd_u16(d);
  if (len < 2 + 2 * count + 2) return anchor_error(AE_ACCOUNT_DID_NOT_DESERIALIZE, ACC_INSTRUCTIONS_SYSVAR);
  uint64_t current = rd_u16(d + len - 2);
  Scan scan = {0, false, 0, 0, NULL, 0, NULL, 0};
  for (uint64_t i = 0; i < count; i++) {
    if (!scan_instruction(s, i, current, rd_u16(d + 2 + 2 * i), &scan)) return anchor_error(AE_ACCOUNT_DID_NOT_DESERIALIZE, ACC_INSTRUCTIONS_SYSVAR);
  }
  /* Invoked by another program, the sysvar's current instruction is that program's. */
  if (!scan.current_is_withdraw_swap) {
    sol_log("withdraw_swap must be a top-level instruction");
    return ERROR_INVALID_ACCOUNT_DATA;
  }
  if (scan.withdraw_swaps != 1) return pool_error(ERR_DUPLICATE_WITHDRAW_SWAP);
  if (scan.asserts > 1) return pool_error(ERR_SWAP_ASSERT_DUPLICATED);
  if (scan.asserts == 0 || scan.assert_index < current || scan.assert_len != IX_ASSERT_SWAP_OUT_LEN) return pool_error(ERR_SWAP_ASSERT_MISSING);
  const uint8_t *keys = scan.assert_keys;
  if (scan.assert_account_count < 4 || !eq32(keys, s->relayer->x) || !eq32(keys + 33, s->mint->x) || !eq32(keys + 66, s->escrow->x) ||
      !eq32(keys + 99, s->recipient_output->x)) {
    return pool_error(ERR_SWAP_ASSERT_WRONG_ACCOUNT);
  }
  if (!eq32(scan.assert_data + ASO_OFF_NULLIFIER_HASH, s->nullifier_hash)) return pool_error(ERR_SWAP_ASSERT_WRONG_ACCOUNT);
  if (rd_u64(scan.assert_data + ASO_OFF_MIN_OUT) < s->min_out) return pool_error(ERR_REQUIRED_BALANCE_TOO_LOW);
  return SUCCESS;
}
