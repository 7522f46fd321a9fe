/*
 * The pool program's errors (errors.c logs them): its own codes, Anchor's framework codes it
 * raises before its own rules, and the account names Anchor's error lines cite. The codes are the
 * codec's (src-shared/pool-program/errors.ts); programs/pool/pool-source.test.ts pins them.
 */
#ifndef POOL_ERRORS_H
#define POOL_ERRORS_H

#include <solana_sdk.h>

/* The pool's own (errors.ts, 6000 + n): logged `Error: <Name>`. */
#define ERR_INVALID_PROOF 6000
#define ERR_UNKNOWN_ROOT 6001
#define ERR_NULLIFIER_SPENT 6002
#define ERR_FEE_EXCEEDS_AMOUNT 6003
#define ERR_TREE_FULL 6004
#define ERR_NOT_AUTHORITY 6005
#define ERR_NOT_REVERTABLE 6006
#define ERR_SWAP_OUTPUT_TOO_LOW 6007
#define ERR_INSUFFICIENT_VAULT 6008
#define ERR_WRONG_TOKEN_ACCOUNT 6009
#define ERR_SWAP_ASSERT_MISSING 6010
#define ERR_SWAP_ASSERT_DUPLICATED 6011
#define ERR_SWAP_ASSERT_WRONG_ACCOUNT 6012
#define ERR_REQUIRED_BALANCE_TOO_LOW 6013
#define ERR_DUPLICATE_WITHDRAW_SWAP 6014
#define ERR_INVALID_INPUT 6015
#define ERR_DEPOSIT_BELOW_MINIMUM 6016

/* Anchor's framework errors the program raises before its own rules (anchor-lang ErrorCode;
 * the same codes and log lines as tests/oracle/localnet/runtime-helpers.ts). */
#define AE_INSTRUCTION_FALLBACK_NOT_FOUND 101
#define AE_INSTRUCTION_DID_NOT_DESERIALIZE 102
#define AE_CONSTRAINT_MUT 2000
#define AE_CONSTRAINT_SEEDS 2006
#define AE_CONSTRAINT_ASSOCIATED 2009
#define AE_CONSTRAINT_ADDRESS 2012
#define AE_CONSTRAINT_TOKEN_MINT 2014
#define AE_CONSTRAINT_TOKEN_OWNER 2015
#define AE_ACCOUNT_DISCRIMINATOR_MISMATCH 3002
#define AE_ACCOUNT_DID_NOT_DESERIALIZE 3003
#define AE_ACCOUNT_NOT_ENOUGH_KEYS 3005
#define AE_ACCOUNT_OWNED_BY_WRONG_PROGRAM 3007
#define AE_INVALID_PROGRAM_ID 3008
#define AE_ACCOUNT_NOT_SIGNER 3010
#define AE_ACCOUNT_NOT_INITIALIZED 3012

/* Account names in Anchor's error lines (`AnchorError caused by account: <name>.`). */
enum {
  ACC_NONE = 0,
  ACC_AUTHORITY,
  ACC_MINT,
  ACC_TREE,
  ACC_VAULT,
  ACC_TOKEN_PROGRAM,
  ACC_SYSTEM_PROGRAM,
  ACC_ASSOCIATED_TOKEN_PROGRAM,
  ACC_DEPOSITOR,
  ACC_DEPOSITOR_TOKEN_ACCOUNT,
  ACC_RECEIPT,
  ACC_COMMITMENT_MARKER,
  ACC_RELAYER,
  ACC_NULLIFIER,
  ACC_RECIPIENT,
  ACC_RECIPIENT_TOKEN_ACCOUNT,
  ACC_RELAYER_TOKEN_ACCOUNT,
  ACC_SWAP_ESCROW,
  ACC_RECIPIENT_OUTPUT_TOKEN_ACCOUNT,
  ACC_OUTPUT_MINT,
  ACC_INSTRUCTIONS_SYSVAR,
  ACC_REVERT_MARKER,
  ACC_PROGRAM_DATA,
  ACC_EVENT_AUTHORITY,
  ACC_PROGRAM,
  ACC_PAYER,
};

/* Logs `Error: <Name>` and returns Custom(code). */
uint64_t pool_error(uint64_t code);
/* Logs Anchor's line for a framework error (account ACC_NONE: "AnchorError occurred.") and returns Custom(code). */
uint64_t anchor_error(uint64_t code, uint64_t account);

#endif
