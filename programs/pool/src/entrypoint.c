/*
 * The entry point: deserialize the input, pick the instruction by its Anchor discriminator,
 * require its exact data length, log `Instruction: <Name>` as Anchor does, and run it.
 *
 * Malformed data never reaches a handler: fewer than 8 bytes or an unknown discriminator is
 * InstructionFallbackNotFound, any length but the instruction's exact one is
 * InstructionDidNotDeserialize (the codec's decodePoolInstruction refuses the same inputs).
 * Handlers read their arguments at fixed offsets within that length.
 */
#include "pool.h"

uint64_t entrypoint(const uint8_t *input) {
  uint64_t event;
  if (event_fast_path(input, &event)) return event;
  /* Both on the heap: 17 account infos alone are more than the 512-byte stack frame. */
  Ctx *ctx = (Ctx *)sol_heap_alloc(sizeof(Ctx));
  SolAccountInfo *ka = (SolAccountInfo *)sol_heap_alloc(MAX_NAMED_ACCOUNTS * sizeof(SolAccountInfo));
  SolRent *rent = (SolRent *)sol_heap_alloc(sizeof(SolRent));
  if (ctx == NULL || ka == NULL || rent == NULL) return ERROR_INVALID_ARGUMENT;
  ctx->p.ka = ka;
  ctx->rent = rent; /* zeroed: the fresh heap is */
  if (!sol_deserialize(input, &ctx->p, MAX_NAMED_ACCOUNTS)) return ERROR_INVALID_ARGUMENT;
  ctx->ka_len = ctx->p.ka_num < MAX_NAMED_ACCOUNTS ? ctx->p.ka_num : MAX_NAMED_ACCOUNTS;

  const uint8_t *data = ctx->p.data;
  uint64_t len = ctx->p.data_len;
  if (len < 8) return anchor_error(AE_INSTRUCTION_FALLBACK_NOT_FOUND, ACC_NONE);
  /* First: every deposit and withdrawal calls this program once more with an event, and that
   * call pays for whatever the dispatch does before it is recognised. No log line (Anchor
   * writes none for it). */
  if (eq8(data, EVENT_IX_TAG)) return process_event(ctx);
  if (eq8(data, DISC_IX_DEPOSIT)) {
    if (len != IX_DEPOSIT_LEN) return anchor_error(AE_INSTRUCTION_DID_NOT_DESERIALIZE, ACC_NONE);
    sol_log("Instruction: Deposit");
    return process_deposit(ctx);
  }
  if (eq8(data, DISC_IX_WITHDRAW)) {
    if (len != IX_WITHDRAW_LEN) return anchor_error(AE_INSTRUCTION_DID_NOT_DESERIALIZE, ACC_NONE);
    sol_log("Instruction: Withdraw");
    return process_withdraw(ctx, false);
  }
  if (eq8(data, DISC_IX_WITHDRAW_SWAP)) {
    if (len != IX_WITHDRAW_SWAP_LEN) return anchor_error(AE_INSTRUCTION_DID_NOT_DESERIALIZE, ACC_NONE);
    sol_log("Instruction: WithdrawSwap");
    return process_withdraw(ctx, true);
  }
  if (eq8(data, DISC_IX_ASSERT_SWAP_OUT)) {
    if (len != IX_ASSERT_SWAP_OUT_LEN) return anchor_error(AE_INSTRUCTION_DID_NOT_DESERIALIZE, ACC_NONE);
    sol_log("Instruction: AssertSwapOut");
    return process_assert_swap_out(ctx);
  }
  if (eq8(data, DISC_IX_REVERT)) {
    if (len != IX_REVERT_LEN) return anchor_error(AE_INSTRUCTION_DID_NOT_DESERIALIZE, ACC_NONE);
    sol_log("Instruction: Revert");
    return process_revert(ctx);
  }
  if (eq8(data, DISC_IX_EXTEND_POOL)) {
    if (len != IX_EXTEND_POOL_LEN) return anchor_error(AE_INSTRUCTION_DID_NOT_DESERIALIZE, ACC_NONE);
    sol_log("Instruction: ExtendPool");
    return process_extend_pool(ctx);
  }
  if (eq8(data, DISC_IX_INITIALIZE_POOL)) {
    if (len != IX_INITIALIZE_POOL_LEN) return anchor_error(AE_INSTRUCTION_DID_NOT_DESERIALIZE, ACC_NONE);
    sol_log("Instruction: InitializePool");
    return process_initialize_pool(ctx);
  }
  return anchor_error(AE_INSTRUCTION_FALLBACK_NOT_FOUND, ACC_NONE);
}
