/*
 * withdraw { proof, root, nullifierHash, recipient, amount, fee, changeCommitment } and
 * withdraw_swap { ...withdraw's, outputMint, minOut } (docs/pool-program.md, protocol v3).
 *
 * Accounts: relayer (w,s, payer), mint, tree (w), vault (w), nullifier (w), recipient,
 * recipient token account (w), relayer token account (w), token program, associated token
 * program, system program, then for withdraw the event authority and the program; withdraw_swap
 * has the swap escrow (w), recipient's output token account (w), output mint, instructions
 * sysvar before those two, then the venue's accounts.
 *
 * The seven public inputs are computed here, never taken from the client: root, nullifierHash,
 * F(recipient), amount, F(mint), extDataHash = Poseidon(F(relayer), fee, F(outputMint) or 0,
 * minOut or 0), where relayer is the account that signs, and the changeCommitment argument. A
 * proof made for another relayer, fee, output mint, minOut or change leaf does not verify
 * (InvalidProof).
 *
 * Order of the checks (the doc's): accounts (addresses, flags, token accounts), InvalidInput
 * (amount 0, changeCommitment zero or not below r), FeeExceedsAmount, UnknownRoot,
 * NullifierSpent, withdraw_swap's assertion, the proof, InsufficientVault. Only then does
 * anything move: the nullifier, the payout (withdraw_swap: the escrow too), then the change
 * leaf, inserted after paying out as every withdrawal does, also when nothing is left.
 */
#include "pool.h"
#include "groth16.h"

enum {
  A_RELAYER,
  A_MINT,
  A_TREE,
  A_VAULT,
  A_NULLIFIER,
  A_RECIPIENT,
  A_RECIPIENT_TOKEN_ACCOUNT,
  A_RELAYER_TOKEN_ACCOUNT,
  A_TOKEN_PROGRAM,
  A_ASSOCIATED_TOKEN_PROGRAM,
  A_SYSTEM_PROGRAM,
  A_BASE_COUNT,
  /* withdraw_swap's four; withdraw's event accounts sit where these begin (event_accounts). */
  A_SWAP_ESCROW = A_BASE_COUNT,
  A_RECIPIENT_OUTPUT_TOKEN_ACCOUNT,
  A_OUTPUT_MINT,
  A_INSTRUCTIONS_SYSVAR,
  A_SWAP_BASE_COUNT,
};
#define A_WITHDRAW_COUNT (A_BASE_COUNT + 2)
#define A_SWAP_COUNT (A_SWAP_BASE_COUNT + 2)
/* Flags and names of withdraw_swap's accounts; withdraw's are the first eleven and the last two. */
static const uint8_t FLAGS[A_SWAP_COUNT] = {F_SIGNER | F_MUT, 0, F_MUT, F_MUT, F_MUT, 0, F_MUT, F_MUT, 0, 0, 0, F_MUT, F_MUT, 0, 0, 0, 0};
static const uint8_t NAMES[A_SWAP_COUNT] = {
  ACC_RELAYER, ACC_MINT, ACC_TREE, ACC_VAULT, ACC_NULLIFIER, ACC_RECIPIENT, ACC_RECIPIENT_TOKEN_ACCOUNT,
  ACC_RELAYER_TOKEN_ACCOUNT, ACC_TOKEN_PROGRAM, ACC_ASSOCIATED_TOKEN_PROGRAM, ACC_SYSTEM_PROGRAM,
  ACC_SWAP_ESCROW, ACC_RECIPIENT_OUTPUT_TOKEN_ACCOUNT, ACC_OUTPUT_MINT, ACC_INSTRUCTIONS_SYSVAR,
  ACC_EVENT_AUTHORITY, ACC_PROGRAM,
};
static const uint8_t SEED_NULLIFIER[9] = {'n', 'u', 'l', 'l', 'i', 'f', 'i', 'e', 'r'};
static const uint8_t SEED_VAULT[5] = {'v', 'a', 'u', 'l', 't'};
static const uint8_t SEED_SWAP_ESCROW[11] = {'s', 'w', 'a', 'p', '_', 'e', 's', 'c', 'r', 'o', 'w'};

/* The handler's state between steps (heap: the public inputs alone are 224 bytes). */
typedef struct {
  uint8_t inputs[GROTH16_PUBLIC_INPUTS][32] __attribute__((aligned(8)));
  uint8_t ext[4][32]; /* F(relayer), fee, F(outputMint) or 0, minOut or 0 */
  uint8_t vault_bump[1];
  uint8_t nullifier_bump[1];
  uint8_t escrow_bump[1];
  bool swap;
  bool receiver_exists; /* the recipient's (output, for a swap) token account */
  uint64_t amount;
  uint64_t fee;
  uint64_t change_leaf_index;
} Withdraw;

/* Addresses, flags and every token account that receives funds. */
static uint64_t check_withdraw_accounts(const Ctx *ctx, Withdraw *w) {
  const SolAccountInfo *ka = ctx->p.ka;
  const uint8_t *data = ctx->p.data;
  const SolPubkey *mint = ka[A_MINT].key;
  const uint8_t *relayer = ka[A_RELAYER].key->x;
  const uint8_t *recipient = data + WD_OFF_RECIPIENT;
  uint64_t err = check_accounts(ctx, FLAGS, NAMES, w->swap ? A_SWAP_COUNT : A_BASE_COUNT);
  if (err != SUCCESS) return err;
  /* withdraw's event accounts (no flags to check: both readonly) must be there too. */
  if (!w->swap && ctx->p.ka_num < A_WITHDRAW_COUNT) return anchor_error(AE_ACCOUNT_NOT_ENOUGH_KEYS, ACC_NONE);
  if ((err = check_program(&ka[A_TOKEN_PROGRAM], &TOKEN_PROGRAM_ID, ACC_TOKEN_PROGRAM)) != SUCCESS) return err;
  if ((err = check_program(&ka[A_ASSOCIATED_TOKEN_PROGRAM], &ASSOCIATED_TOKEN_PROGRAM_ID, ACC_ASSOCIATED_TOKEN_PROGRAM)) != SUCCESS) return err;
  if ((err = check_program(&ka[A_SYSTEM_PROGRAM], &SYSTEM_PROGRAM_ID, ACC_SYSTEM_PROGRAM)) != SUCCESS) return err;
  if ((err = load_tree(ctx, &ka[A_TREE], mint)) != SUCCESS) return err;
  uint8_t vault_bump;
  if ((err = check_vault(ctx, ka[A_TREE].data, &ka[A_VAULT], mint, &vault_bump)) != SUCCESS) return err;
  w->vault_bump[0] = vault_bump;
  Seeds seeds = {{{SEED_NULLIFIER, sizeof(SEED_NULLIFIER)}, {mint->x, 32}, {data + WD_OFF_NULLIFIER_HASH, 32}}, 3};
  if (!pda_is(&seeds, ctx->p.program_id, ka[A_NULLIFIER].key, w->nullifier_bump)) return anchor_error(AE_CONSTRAINT_SEEDS, ACC_NULLIFIER);
  if (!eq32(ka[A_RECIPIENT].key->x, recipient)) return anchor_error(AE_CONSTRAINT_ADDRESS, ACC_RECIPIENT);
  if (!is_associated_token_account(ka[A_RECIPIENT_TOKEN_ACCOUNT].key, recipient, mint->x)) {
    return anchor_error(AE_CONSTRAINT_ASSOCIATED, ACC_RECIPIENT_TOKEN_ACCOUNT);
  }
  /* The fee's receiver (and a swap's input) must already be the relayer's token account of this mint. */
  const SolAccountInfo *relayer_account = &ka[A_RELAYER_TOKEN_ACCOUNT];
  if (!account_exists(relayer_account)) return anchor_error(AE_ACCOUNT_NOT_INITIALIZED, ACC_RELAYER_TOKEN_ACCOUNT);
  bool relayer_exists;
  if ((err = check_receiving_account(relayer_account, mint->x, relayer, &relayer_exists)) != SUCCESS) return err;
  if (!relayer_exists) return pool_error(ERR_WRONG_TOKEN_ACCOUNT);
  if (!w->swap) return check_receiving_account(&ka[A_RECIPIENT_TOKEN_ACCOUNT], mint->x, recipient, &w->receiver_exists);

  const uint8_t *output_mint = data + WD_OFF_OUTPUT_MINT;
  if (!eq32(ka[A_OUTPUT_MINT].key->x, output_mint)) return anchor_error(AE_CONSTRAINT_ADDRESS, ACC_OUTPUT_MINT);
  /* The escrow is this withdrawal's own: a PDA of the pool program, which only withdraw_swap
   * creates (an associated token account anyone could create and fund beforehand). */
  Seeds escrow = {{{SEED_SWAP_ESCROW, sizeof(SEED_SWAP_ESCROW)}, {mint->x, 32}, {data + WD_OFF_NULLIFIER_HASH, 32}}, 3};
  if (!pda_is(&escrow, ctx->p.program_id, ka[A_SWAP_ESCROW].key, w->escrow_bump)) return anchor_error(AE_CONSTRAINT_SEEDS, ACC_SWAP_ESCROW);
  const SolAccountInfo *out = &ka[A_RECIPIENT_OUTPUT_TOKEN_ACCOUNT];
  if (!is_associated_token_account(out->key, recipient, output_mint)) return anchor_error(AE_CONSTRAINT_ASSOCIATED, ACC_RECIPIENT_OUTPUT_TOKEN_ACCOUNT);
  if (!SolPubkey_same(ka[A_INSTRUCTIONS_SYSVAR].key, &SYSVAR_INSTRUCTIONS_ID)) return anchor_error(AE_CONSTRAINT_ADDRESS, ACC_INSTRUCTIONS_SYSVAR);
  return check_receiving_account(out, output_mint, recipient, &w->receiver_exists);
}

/* amount 0 and a change leaf that is zero (the empty leaf) or not a field element (a second
 * encoding of one, which the MUL syscall would reduce) are refused before any hashing. */
static uint64_t check_inputs(const Ctx *ctx, const Withdraw *w) {
  const uint8_t *change = ctx->p.data + WD_OFF_CHANGE_COMMITMENT;
  if (w->amount == 0 || is_zero32(change) || !is_canonical_field(change)) return pool_error(ERR_INVALID_INPUT);
  return SUCCESS;
}

/* The seven public inputs, in circuit order, from the transaction itself. */
static uint64_t public_inputs(const Ctx *ctx, Withdraw *w) {
  const SolAccountInfo *ka = ctx->p.ka;
  const uint8_t *data = ctx->p.data;
  uint64_t err;
  copy32(w->inputs[0], data + WD_OFF_ROOT);
  copy32(w->inputs[1], data + WD_OFF_NULLIFIER_HASH);
  if ((err = pubkey_field(data + WD_OFF_RECIPIENT, w->inputs[2])) != SUCCESS) return err;
  u64_field(w->amount, w->inputs[3]);
  /* F(mint) as extend_pool stored it in the tree (load_tree proved the tree is this mint's). */
  copy32(w->inputs[4], ka[A_TREE].data + TREE_OFF_MINT_FIELD);
  if ((err = pubkey_field(ka[A_RELAYER].key->x, w->ext[0])) != SUCCESS) return err;
  u64_field(w->fee, w->ext[1]);
  if (w->swap) {
    /* A plain withdrawal's (0, 0) can never equal a swap's: F(key) is a Poseidon output. */
    if ((err = pubkey_field(data + WD_OFF_OUTPUT_MINT, w->ext[2])) != SUCCESS) return err;
    u64_field(rd_u64(data + WD_OFF_MIN_OUT), w->ext[3]);
  } else {
    u64_field(0, w->ext[2]);
    u64_field(0, w->ext[3]);
  }
  copy32(w->inputs[6], data + WD_OFF_CHANGE_COMMITMENT);
  SolBytes vals[4] = {{w->ext[0], 32}, {w->ext[1], 32}, {w->ext[2], 32}, {w->ext[3], 32}};
  return poseidon(vals, 4, w->inputs[5]);
}

/* The nullifier account: created at its PDA (rent paid by the relayer), kind withdraw. */
static uint64_t spend_nullifier(const Ctx *ctx, Withdraw *w) {
  const SolAccountInfo *ka = ctx->p.ka;
  const uint8_t *nullifier_hash = ctx->p.data + WD_OFF_NULLIFIER_HASH;
  const SolAccountInfo *nullifier = &ka[A_NULLIFIER];
  Seeds seeds = {{{SEED_NULLIFIER, sizeof(SEED_NULLIFIER)}, {ka[A_MINT].key->x, 32}, {nullifier_hash, 32}, {w->nullifier_bump, 1}}, 4};
  SolSignerSeeds signer = {seeds.s, 4};
  CreateAccount create = {ctx, &ka[A_RELAYER], nullifier, NULLIFIER_ACCOUNT_SIZE, ctx->p.program_id, &signer};
  uint64_t err = cpi_create_account(&create);
  if (err != SUCCESS) return err;
  if (nullifier->data_len != NULLIFIER_ACCOUNT_SIZE) return ERROR_ACCOUNT_DATA_TOO_SMALL;
  SolClock clock;
  if ((err = load_clock(&clock)) != SUCCESS) return err;
  uint8_t *n = nullifier->data;
  for (uint64_t i = 0; i < 8; i++) n[i] = DISC_NULLIFIER_ACCOUNT[i];
  copy32(n + 8, ka[A_MINT].key->x);
  copy32(n + 40, nullifier_hash);
  n[72] = NULLIFIER_KIND_WITHDRAW;
  wr_u64(n + 73, clock.slot);
  return SUCCESS;
}

/* withdraw_swap's escrow: a token account of the output mint at its PDA whose token owner is
 * the PDA itself, so only this program (assert_swap_out) can move what the route puts there.
 * Rent from the relayer, who gets it back when assert_swap_out closes it; lamports someone sent
 * to the address beforehand do not block it (cpi_create_account). */
static uint64_t create_escrow(const Ctx *ctx, const Withdraw *w) {
  const SolAccountInfo *ka = ctx->p.ka;
  const SolAccountInfo *escrow = &ka[A_SWAP_ESCROW];
  Seeds seeds = {{{SEED_SWAP_ESCROW, sizeof(SEED_SWAP_ESCROW)}, {ka[A_MINT].key->x, 32}, {ctx->p.data + WD_OFF_NULLIFIER_HASH, 32}, {w->escrow_bump, 1}}, 4};
  SolSignerSeeds signer = {seeds.s, 4};
  CreateAccount create = {ctx, &ka[A_RELAYER], escrow, TOKEN_ACCOUNT_SIZE, &TOKEN_PROGRAM_ID, &signer};
  uint64_t err = cpi_create_account(&create);
  if (err != SUCCESS) return err;
  return cpi_initialize_account3(ctx, escrow, &ka[A_OUTPUT_MINT], escrow->key);
}

/* Creates the receiving token account when missing, then pays: withdraw pays amount - fee to
 * the recipient and fee to the relayer; withdraw_swap creates the escrow and pays the whole
 * amount to the relayer's input token account, for the venue's swap that follows (the fee
 * stays with the relayer). */
static uint64_t pay_out(const Ctx *ctx, const Withdraw *w) {
  const SolAccountInfo *ka = ctx->p.ka;
  const SolAccountInfo *vault = &ka[A_VAULT];
  uint64_t err;
  if (!w->receiver_exists) {
    CreateAta create = {ctx, &ka[A_RELAYER],
                        w->swap ? &ka[A_RECIPIENT_OUTPUT_TOKEN_ACCOUNT] : &ka[A_RECIPIENT_TOKEN_ACCOUNT],
                        &ka[A_RECIPIENT], w->swap ? &ka[A_OUTPUT_MINT] : &ka[A_MINT]};
    if ((err = cpi_create_ata(&create)) != SUCCESS) return err;
  }
  Seeds seeds = {{{SEED_VAULT, sizeof(SEED_VAULT)}, {ka[A_MINT].key->x, 32}, {w->vault_bump, 1}}, 3};
  SolSignerSeeds signer = {seeds.s, 3};
  TokenTransfer t = {ctx, vault, &ka[A_RELAYER_TOKEN_ACCOUNT], vault, w->amount, &signer};
  if (w->swap) {
    if ((err = create_escrow(ctx, w)) != SUCCESS) return err;
    return cpi_token_transfer(&t);
  }
  t.destination = &ka[A_RECIPIENT_TOKEN_ACCOUNT];
  t.amount = w->amount - w->fee;
  if ((err = cpi_token_transfer(&t)) != SUCCESS) return err;
  if (w->fee == 0) return SUCCESS;
  t.destination = &ka[A_RELAYER_TOKEN_ACCOUNT];
  t.amount = w->fee;
  return cpi_token_transfer(&t);
}

uint64_t process_withdraw(const Ctx *ctx, bool swap) {
  Withdraw *w = (Withdraw *)sol_heap_alloc(sizeof(Withdraw));
  if (w == NULL) return ERROR_INVALID_ARGUMENT;
  const uint8_t *data = ctx->p.data;
  const SolAccountInfo *ka = ctx->p.ka;
  w->swap = swap;
  w->amount = rd_u64(data + WD_OFF_AMOUNT);
  w->fee = rd_u64(data + WD_OFF_FEE);
  uint64_t err = check_withdraw_accounts(ctx, w);
  if (err != SUCCESS) return err;

  if ((err = check_inputs(ctx, w)) != SUCCESS) return err;
  if (w->fee > w->amount) return pool_error(ERR_FEE_EXCEEDS_AMOUNT);
  uint8_t *tree = ka[A_TREE].data;
  if (!tree_has_root(tree, data + WD_OFF_ROOT)) return pool_error(ERR_UNKNOWN_ROOT);
  /* Only this program makes accounts it owns at a nullifier's PDA, and only when spending it. */
  if (SolPubkey_same(ka[A_NULLIFIER].owner, ctx->p.program_id)) return pool_error(ERR_NULLIFIER_SPENT);
  if (swap) {
    SwapAssertion a = {ctx, &ka[A_INSTRUCTIONS_SYSVAR], ka[A_RELAYER].key, ka[A_MINT].key, ka[A_SWAP_ESCROW].key,
                       ka[A_RECIPIENT_OUTPUT_TOKEN_ACCOUNT].key, data + WD_OFF_NULLIFIER_HASH, rd_u64(data + WD_OFF_MIN_OUT)};
    if ((err = check_swap_assertion(&a)) != SUCCESS) return err;
  }

  if ((err = public_inputs(ctx, w)) != SUCCESS) return err;
  /* groth16_verify refuses a public input >= r (one nullifierHash, one encoding) and a proof
   * point off the curve; any refusal is InvalidProof. */
  if (groth16_verify(data + WD_OFF_PROOF, (const uint8_t(*)[32])w->inputs) != GROTH16_OK) return pool_error(ERR_INVALID_PROOF);
  if (rd_u64(ka[A_VAULT].data + TOKEN_OFF_AMOUNT) < w->amount) return pool_error(ERR_INSUFFICIENT_VAULT);

  if ((err = spend_nullifier(ctx, w)) != SUCCESS) return err;
  if ((err = pay_out(ctx, w)) != SUCCESS) return err;
  /* The change leaf: no commitment marker (a duplicate harms only its maker; its nullifier
   * still allows one spend), and inserted also when nothing is left, so a whole withdrawal
   * looks like a partial one. */
  if ((err = tree_insert(tree, data + WD_OFF_CHANGE_COMMITMENT, &w->change_leaf_index)) != SUCCESS) return err;
  uint64_t total = rd_u64(tree + TREE_OFF_TOTAL_WITHDRAWN);
  if (total + w->amount < total) return ERROR_ARITHMETIC_OVERFLOW;
  wr_u64(tree + TREE_OFF_TOTAL_WITHDRAWN, total + w->amount);

  WithdrawEventFields event = {data + WD_OFF_NULLIFIER_HASH, data + WD_OFF_RECIPIENT, w->amount, w->fee, ka[A_RELAYER].key->x,
                               data + WD_OFF_CHANGE_COMMITMENT, w->change_leaf_index};
  EventSink sink = {ctx, tree, &ka[swap ? A_SWAP_BASE_COUNT : A_BASE_COUNT]};
  return emit_withdraw(&sink, &event);
}
