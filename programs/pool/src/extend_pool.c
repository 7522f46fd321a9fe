/*
 * extend_pool {} — payer (w,s), mint, tree (w), system program. Grows a tree that
 * initialize_pool created at TREE_INITIAL_SIZE by min(MAX_PERMITTED_DATA_INCREASE, what is
 * missing) toward TREE_ACCOUNT_SIZE; the payer tops up its rent. Anyone may call it (it only
 * makes a pool usable sooner, at the caller's cost); InvalidInput once the tree has its full size.
 *
 * A program may create at most 10,240 bytes by CPI and grow an account it owns by at most
 * 10,240 bytes per instruction, so the 33,160-byte tree takes initialize_pool plus three of these
 * (initializePoolInstructions sends them in one transaction). The one that completes the tree also
 * stores F(mint) at its end.
 */
#include "pool.h"

enum { A_PAYER, A_MINT, A_TREE, A_SYSTEM_PROGRAM, A_COUNT };
static const uint8_t FLAGS[A_COUNT] = {F_SIGNER | F_MUT, 0, F_MUT, 0};
static const uint8_t NAMES[A_COUNT] = {ACC_PAYER, ACC_MINT, ACC_TREE, ACC_SYSTEM_PROGRAM};

#define SYSTEM_TRANSFER 2

/* The tree of `mint` at any size up to the full one: only initialize_pool makes accounts of this
 * program with a TreeAccount's discriminator, at the canonical PDA of the mint it stores in them,
 * so owner, discriminator and stored mint prove the address. Anything else gets Anchor's errors
 * in Anchor's order. */
static uint64_t load_growing_tree(const Ctx *ctx, const SolAccountInfo *tree, const SolPubkey *mint) {
  bool ours = SolPubkey_same(tree->owner, ctx->p.program_id);
  bool shaped = tree->data_len >= TREE_INITIAL_SIZE && tree->data_len <= TREE_ACCOUNT_SIZE && eq8(tree->data, DISC_TREE_ACCOUNT);
  if (ours && shaped && eq32(tree->data + TREE_OFF_MINT, mint->x)) return SUCCESS;
  return tree_error(ctx, tree, mint);
}

uint64_t process_extend_pool(const Ctx *ctx) {
  uint64_t err = check_accounts(ctx, FLAGS, NAMES, A_COUNT);
  if (err != SUCCESS) return err;
  const SolAccountInfo *ka = ctx->p.ka;
  const SolAccountInfo *payer = &ka[A_PAYER];
  SolAccountInfo *tree = &ctx->p.ka[A_TREE];
  if ((err = check_program(&ka[A_SYSTEM_PROGRAM], &SYSTEM_PROGRAM_ID, ACC_SYSTEM_PROGRAM)) != SUCCESS) return err;
  if ((err = load_growing_tree(ctx, tree, ka[A_MINT].key)) != SUCCESS) return err;
  uint64_t len = tree->data_len;
  if (len >= TREE_ACCOUNT_SIZE) return pool_error(ERR_INVALID_INPUT);
  uint64_t grown = len + MAX_PERMITTED_DATA_INCREASE < TREE_ACCOUNT_SIZE ? len + MAX_PERMITTED_DATA_INCREASE : TREE_ACCOUNT_SIZE;

  /* Rent first, while the tree still has its old length: the runtime checks every account's
   * rent exemption at the end of the transaction, against its new length. */
  uint64_t rent;
  if ((err = rent_exempt_minimum(ctx, grown, &rent)) != SUCCESS) return err;
  uint64_t held = *tree->lamports;
  if (rent > held) {
    uint8_t data[12];
    wr_u32(data, SYSTEM_TRANSFER);
    wr_u64(data + 4, rent - held);
    SolAccountMeta metas[2] = {{payer->key, true, true}, {tree->key, true, false}};
    SolInstruction ix = {(SolPubkey *)&SYSTEM_PROGRAM_ID, metas, 2, data, sizeof(data)};
    if ((err = sol_invoke(&ix, ctx->p.ka, ctx->ka_len)) != SUCCESS) return err;
  }

  /* The realloc: the serialized input holds the account's length in the 8 bytes before its data,
   * followed by MAX_PERMITTED_DATA_INCREASE spare bytes; the runtime takes the length written
   * there as the account's new length when the instruction ends. The new bytes are zeroed here
   * rather than trusted to be: the ring's unused slots must read as zero. */
  sol_memset(tree->data + len, 0, grown - len);
  *(uint64_t *)(tree->data - 8) = grown;
  tree->data_len = grown;
  /* The tree is complete: F(mint) goes in its last 32 bytes, which no instruction reads before. */
  if (grown == TREE_ACCOUNT_SIZE) return pubkey_field(tree->data + TREE_OFF_MINT, tree->data + TREE_OFF_MINT_FIELD);
  return SUCCESS;
}
