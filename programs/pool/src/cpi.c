/*
 * Cross-program invocations: the System program (accounts of this program at its PDAs), SPL
 * Token (transfers, the vault's InitializeAccount3) and Associated Token (a recipient's missing
 * token account). Every CPI passes the instruction's deserialized accounts as account infos: the
 * runtime picks the ones the callee's metas name, and writes a created account's new length back
 * into our own SolAccountInfo, so later writes to its data are bounded by the real length.
 */
#include "pool.h"

#define SYSTEM_CREATE_ACCOUNT 0
#define SYSTEM_ASSIGN 1
#define SYSTEM_TRANSFER 2
#define SYSTEM_ALLOCATE 8
#define TOKEN_TRANSFER 3
#define TOKEN_CLOSE_ACCOUNT 9
#define TOKEN_INITIALIZE_ACCOUNT3 18
#define ATA_CREATE_IDEMPOTENT 1

static uint64_t invoke(const Ctx *ctx, const SolInstruction *ix, const SolSignerSeeds *signer) {
  return sol_invoke_signed(ix, ctx->p.ka, ctx->ka_len, signer, signer == NULL ? 0 : 1);
}

static uint64_t system_transfer(const CreateAccount *c, uint64_t lamports) {
  uint8_t data[12];
  wr_u32(data, SYSTEM_TRANSFER);
  wr_u64(data + 4, lamports);
  SolAccountMeta metas[2] = {{c->payer->key, true, true}, {c->account->key, true, false}};
  SolInstruction ix = {(SolPubkey *)&SYSTEM_PROGRAM_ID, metas, 2, data, sizeof(data)};
  return invoke(c->ctx, &ix, NULL);
}

static uint64_t system_allocate(const CreateAccount *c) {
  uint8_t data[12];
  wr_u32(data, SYSTEM_ALLOCATE);
  wr_u64(data + 4, c->space);
  SolAccountMeta metas[1] = {{c->account->key, true, true}};
  SolInstruction ix = {(SolPubkey *)&SYSTEM_PROGRAM_ID, metas, 1, data, sizeof(data)};
  return invoke(c->ctx, &ix, c->signer);
}

static uint64_t system_assign(const CreateAccount *c) {
  uint8_t data[36];
  wr_u32(data, SYSTEM_ASSIGN);
  copy32(data + 4, c->owner->x);
  SolAccountMeta metas[1] = {{c->account->key, true, true}};
  SolInstruction ix = {(SolPubkey *)&SYSTEM_PROGRAM_ID, metas, 1, data, sizeof(data)};
  return invoke(c->ctx, &ix, c->signer);
}

uint64_t cpi_create_account(const CreateAccount *c) {
  uint64_t rent;
  uint64_t err = rent_exempt_minimum(c->ctx, c->space, &rent);
  if (err != SUCCESS) return err;
  const SolAccountInfo *a = c->account;
  uint64_t current = *a->lamports;
  if (current > 0 && SolPubkey_same(a->owner, &SYSTEM_PROGRAM_ID) && a->data_len == 0) {
    /* Someone sent lamports to the address first (CreateAccount would refuse it as in use):
     * top up to the rent, then allocate and assign, as Anchor's `init` does. */
    if (rent > current) {
      err = system_transfer(c, rent - current);
      if (err != SUCCESS) return err;
    }
    err = system_allocate(c);
    if (err != SUCCESS) return err;
    return system_assign(c);
  }
  /* Otherwise CreateAccount; an account in use fails there with the System program's
   * AccountAlreadyInUse (Custom 0): a second initialize_pool, a nonce used twice. */
  uint8_t data[52];
  wr_u32(data, SYSTEM_CREATE_ACCOUNT);
  wr_u64(data + 4, rent);
  wr_u64(data + 12, c->space);
  copy32(data + 20, c->owner->x);
  SolAccountMeta metas[2] = {{c->payer->key, true, true}, {a->key, true, true}};
  SolInstruction ix = {(SolPubkey *)&SYSTEM_PROGRAM_ID, metas, 2, data, sizeof(data)};
  return invoke(c->ctx, &ix, c->signer);
}

uint64_t cpi_token_transfer(const TokenTransfer *t) {
  uint8_t data[9];
  data[0] = TOKEN_TRANSFER;
  wr_u64(data + 1, t->amount);
  SolAccountMeta metas[3] = {
    {t->source->key, true, false},
    {t->destination->key, true, false},
    {t->authority->key, false, true},
  };
  SolInstruction ix = {(SolPubkey *)&TOKEN_PROGRAM_ID, metas, 3, data, sizeof(data)};
  return invoke(t->ctx, &ix, t->signer);
}

uint64_t cpi_token_close(const TokenClose *c) {
  uint8_t data[1] = {TOKEN_CLOSE_ACCOUNT};
  SolAccountMeta metas[3] = {
    {c->account->key, true, false},
    {c->destination->key, true, false},
    {c->authority->key, false, true},
  };
  SolInstruction ix = {(SolPubkey *)&TOKEN_PROGRAM_ID, metas, 3, data, sizeof(data)};
  return invoke(c->ctx, &ix, c->signer);
}

uint64_t cpi_initialize_account3(const Ctx *ctx, const SolAccountInfo *account, const SolAccountInfo *mint, const SolPubkey *owner) {
  uint8_t data[33];
  data[0] = TOKEN_INITIALIZE_ACCOUNT3;
  copy32(data + 1, owner->x);
  SolAccountMeta metas[2] = {{account->key, true, false}, {mint->key, false, false}};
  SolInstruction ix = {(SolPubkey *)&TOKEN_PROGRAM_ID, metas, 2, data, sizeof(data)};
  return invoke(ctx, &ix, NULL);
}

uint64_t cpi_create_ata(const CreateAta *c) {
  uint8_t data[1] = {ATA_CREATE_IDEMPOTENT};
  SolAccountMeta metas[6] = {
    {c->payer->key, true, true},
    {c->account->key, true, false},
    {c->wallet->key, false, false},
    {c->mint->key, false, false},
    {(SolPubkey *)&SYSTEM_PROGRAM_ID, false, false},
    {(SolPubkey *)&TOKEN_PROGRAM_ID, false, false},
  };
  SolInstruction ix = {(SolPubkey *)&ASSOCIATED_TOKEN_PROGRAM_ID, metas, 6, data, sizeof(data)};
  return invoke(c->ctx, &ix, NULL);
}
