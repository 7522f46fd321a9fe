/*
 * Refusals and their log lines. The pool's own errors log `Error: <Name>` (docs/pool-program.md
 * "Program errors"; the relay maps them from simulation logs); Anchor's framework errors log
 * Anchor's line, as the TypeScript oracle (tests/oracle/localnet/runtime-helpers.ts) does, so
 * a client reading either sees the same thing. Names are chosen by switch, never by a table of
 * pointers: .rodata may hold no relocations.
 */
#include "pool.h"

/* Appends n bytes; callers size their buffers for the longest line. */
static void put(char *out, uint64_t *len, const char *s) {
  uint64_t n = sol_strlen(s);
  for (uint64_t i = 0; i < n; i++) out[*len + i] = s[i];
  *len += n;
}

/* Decimal of a code (at most 4 digits here). */
static void put_u64(char *out, uint64_t *len, uint64_t v) {
  char digits[20];
  uint64_t n = 0;
  do {
    digits[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (n > 0) out[(*len)++] = digits[--n];
}

uint64_t __attribute__((noinline)) pool_error(uint64_t code) {
  const char *line;
  switch (code) {
    case ERR_INVALID_PROOF: line = "Error: InvalidProof"; break;
    case ERR_UNKNOWN_ROOT: line = "Error: UnknownRoot"; break;
    case ERR_NULLIFIER_SPENT: line = "Error: NullifierSpent"; break;
    case ERR_FEE_EXCEEDS_AMOUNT: line = "Error: FeeExceedsAmount"; break;
    case ERR_TREE_FULL: line = "Error: TreeFull"; break;
    case ERR_NOT_AUTHORITY: line = "Error: NotAuthority"; break;
    case ERR_NOT_REVERTABLE: line = "Error: NotRevertable"; break;
    case ERR_SWAP_OUTPUT_TOO_LOW: line = "Error: SwapOutputTooLow"; break;
    case ERR_INSUFFICIENT_VAULT: line = "Error: InsufficientVault"; break;
    case ERR_WRONG_TOKEN_ACCOUNT: line = "Error: WrongTokenAccount"; break;
    case ERR_SWAP_ASSERT_MISSING: line = "Error: SwapAssertMissing"; break;
    case ERR_SWAP_ASSERT_DUPLICATED: line = "Error: SwapAssertDuplicated"; break;
    case ERR_SWAP_ASSERT_WRONG_ACCOUNT: line = "Error: SwapAssertWrongAccount"; break;
    case ERR_REQUIRED_BALANCE_TOO_LOW: line = "Error: RequiredBalanceTooLow"; break;
    case ERR_DUPLICATE_WITHDRAW_SWAP: line = "Error: DuplicateWithdrawSwap"; break;
    case ERR_DEPOSIT_BELOW_MINIMUM: line = "Error: DepositBelowMinimum"; break;
    default: line = "Error: InvalidInput"; break;
  }
  sol_log(line);
  return ERROR_CUSTOM(code);
}

static const char *account_name(uint64_t account) {
  switch (account) {
    case ACC_AUTHORITY: return "authority";
    case ACC_MINT: return "mint";
    case ACC_TREE: return "tree";
    case ACC_VAULT: return "vault";
    case ACC_TOKEN_PROGRAM: return "token_program";
    case ACC_SYSTEM_PROGRAM: return "system_program";
    case ACC_ASSOCIATED_TOKEN_PROGRAM: return "associated_token_program";
    case ACC_DEPOSITOR: return "depositor";
    case ACC_DEPOSITOR_TOKEN_ACCOUNT: return "depositor_token_account";
    case ACC_RECEIPT: return "receipt";
    case ACC_COMMITMENT_MARKER: return "commitment_marker";
    case ACC_RELAYER: return "relayer";
    case ACC_NULLIFIER: return "nullifier";
    case ACC_RECIPIENT: return "recipient";
    case ACC_RECIPIENT_TOKEN_ACCOUNT: return "recipient_token_account";
    case ACC_RELAYER_TOKEN_ACCOUNT: return "relayer_token_account";
    case ACC_SWAP_ESCROW: return "swap_escrow";
    case ACC_RECIPIENT_OUTPUT_TOKEN_ACCOUNT: return "recipient_output_token_account";
    case ACC_OUTPUT_MINT: return "output_mint";
    case ACC_INSTRUCTIONS_SYSVAR: return "instructions_sysvar";
    case ACC_PROGRAM_DATA: return "program_data";
    case ACC_EVENT_AUTHORITY: return "event_authority";
    case ACC_PROGRAM: return "program";
    case ACC_PAYER: return "payer";
    default: return "revert_marker";
  }
}

/* "Error Code: <Name>. Error Number: <n>. Error Message: <msg>." */
static void put_anchor_code(char *out, uint64_t *len, uint64_t code) {
  const char *name;
  const char *message;
  switch (code) {
    case AE_INSTRUCTION_FALLBACK_NOT_FOUND: name = "InstructionFallbackNotFound"; message = "Fallback functions are not supported"; break;
    case AE_INSTRUCTION_DID_NOT_DESERIALIZE: name = "InstructionDidNotDeserialize"; message = "The program could not deserialize the given instruction"; break;
    case AE_CONSTRAINT_MUT: name = "ConstraintMut"; message = "A mut constraint was violated"; break;
    case AE_CONSTRAINT_SEEDS: name = "ConstraintSeeds"; message = "A seeds constraint was violated"; break;
    case AE_CONSTRAINT_ASSOCIATED: name = "ConstraintAssociated"; message = "An associated constraint was violated"; break;
    case AE_CONSTRAINT_ADDRESS: name = "ConstraintAddress"; message = "An address constraint was violated"; break;
    case AE_CONSTRAINT_TOKEN_MINT: name = "ConstraintTokenMint"; message = "A token mint constraint was violated"; break;
    case AE_CONSTRAINT_TOKEN_OWNER: name = "ConstraintTokenOwner"; message = "A token owner constraint was violated"; break;
    case AE_ACCOUNT_DISCRIMINATOR_MISMATCH: name = "AccountDiscriminatorMismatch"; message = "8 byte discriminator did not match what was expected"; break;
    case AE_ACCOUNT_DID_NOT_DESERIALIZE: name = "AccountDidNotDeserialize"; message = "Failed to deserialize the account"; break;
    case AE_ACCOUNT_NOT_ENOUGH_KEYS: name = "AccountNotEnoughKeys"; message = "Not enough account keys given to the instruction"; break;
    case AE_ACCOUNT_OWNED_BY_WRONG_PROGRAM: name = "AccountOwnedByWrongProgram"; message = "The given account is owned by a different program than expected"; break;
    case AE_INVALID_PROGRAM_ID: name = "InvalidProgramId"; message = "Program ID was not as expected"; break;
    case AE_ACCOUNT_NOT_SIGNER: name = "AccountNotSigner"; message = "The given account did not sign"; break;
    default: name = "AccountNotInitialized"; message = "The program expected this account to be already initialized"; break;
  }
  put(out, len, "Error Code: ");
  put(out, len, name);
  put(out, len, ". Error Number: ");
  put_u64(out, len, code);
  put(out, len, ". Error Message: ");
  put(out, len, message);
  put(out, len, ".");
}

uint64_t __attribute__((noinline)) anchor_error(uint64_t code, uint64_t account) {
  /* The longest line: 31 + 30 (account) + 2 + 12 + 28 + 16 + 4 + 17 + 64 + 1 < 240. */
  char line[240];
  uint64_t len = 0;
  if (account == ACC_NONE) {
    put(line, &len, "AnchorError occurred. ");
  } else {
    put(line, &len, "AnchorError caused by account: ");
    put(line, &len, account_name(account));
    put(line, &len, ". ");
  }
  put_anchor_code(line, &len, code);
  sol_log_(line, len);
  return ERROR_CUSTOM(code);
}
