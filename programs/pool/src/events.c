/*
 * Events as Anchor's emit! writes them: one sol_log_data field, discriminator ‖ Borsh fields,
 * which the runtime logs as `Program data: <base64>` (src-shared/pool-program/events.ts).
 * The indexer reads DepositEvent's commitment: the leaf this program computed.
 */
#include "pool.h"

static void emit(const uint8_t *bytes, uint64_t len) {
  SolBytes field = {bytes, len};
  sol_log_data(&field, 1);
}

/* DepositEvent: leafIndex u32, commitment, depositor, amount, slot, nonce (100 bytes).
 * DepositFailedEvent: precommitment, commitment, depositor, amount, slot, nonce, reason u8 (129). */
void emit_deposit(const DepositEventFields *e) {
  uint8_t out[129];
  uint64_t at = 8;
  if (e->reason == 0) {
    for (uint64_t i = 0; i < 8; i++) out[i] = DISC_DEPOSIT_EVENT[i];
    wr_u32(out + at, e->leaf_index);
    at += 4;
  } else {
    for (uint64_t i = 0; i < 8; i++) out[i] = DISC_DEPOSIT_FAILED_EVENT[i];
    copy32(out + at, e->precommitment);
    at += 32;
  }
  copy32(out + at, e->commitment);
  copy32(out + at + 32, e->depositor);
  at += 64;
  wr_u64(out + at, e->amount);
  wr_u64(out + at + 8, e->slot);
  wr_u64(out + at + 16, e->nonce);
  at += 24;
  if (e->reason != 0) out[at++] = (uint8_t)e->reason;
  emit(out, at);
}

/* WithdrawEvent: nullifierHash, recipient, amount, fee, relayer, changeCommitment,
 * changeLeafIndex u32 (156 bytes; v3 appended the last two). */
void emit_withdraw(const WithdrawEventFields *e) {
  uint8_t out[156];
  for (uint64_t i = 0; i < 8; i++) out[i] = DISC_WITHDRAW_EVENT[i];
  copy32(out + 8, e->nullifier_hash);
  copy32(out + 40, e->recipient);
  wr_u64(out + 72, e->amount);
  wr_u64(out + 80, e->fee);
  copy32(out + 88, e->relayer);
  copy32(out + 120, e->change_commitment);
  wr_u32(out + 152, e->change_leaf_index);
  emit(out, sizeof(out));
}

/* RevertEvent: depositor, amount, nonce, revertNullifier (88 bytes). */
void emit_revert(const RevertEventFields *e) {
  uint8_t out[88];
  for (uint64_t i = 0; i < 8; i++) out[i] = DISC_REVERT_EVENT[i];
  copy32(out + 8, e->depositor);
  wr_u64(out + 40, e->amount);
  wr_u64(out + 48, e->nonce);
  copy32(out + 56, e->revert_nullifier);
  emit(out, sizeof(out));
}
