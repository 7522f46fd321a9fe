/*
 * Events as Anchor's emit_cpi! sends them: a CPI to this program whose data is EVENT_IX_TAG ‖
 * discriminator ‖ Borsh fields (src-shared/pool-program/events.ts) and whose one account is the
 * event authority PDA ["__event_authority"], signing. The runtime records the CPI among the
 * transaction's inner instructions whatever the logs hold: a `Program data:` line is dropped
 * once a transaction's logs pass 10,000 bytes, which let anyone hide a DepositEvent from the
 * indexer (issue 25). The indexer reads DepositEvent's commitment: the leaf this program
 * computed.
 */
#include "pool.h"

/* The largest event (DepositFailedEvent, 129 bytes) after the 8-byte tag. */
#define EVENT_MAX 137

/* The CPI: signed with the tree's stored eventAuthorityBump, so no deposit or withdrawal
 * searches for the bump. Only the event authority's account info is passed (the runtime looks
 * up each meta's key among the infos and charges per byte of the accounts it maps: this one has
 * none). The callee is this program, which the instruction's `program` account names; without
 * it the runtime refuses the CPI. */
static uint64_t emit(const EventSink *sink, const uint8_t *bytes, uint64_t len) {
  uint8_t bump[1] = {sink->tree[TREE_OFF_EVENT_AUTHORITY_BUMP]};
  SolSignerSeed seeds[2] = {{SEED_EVENT_AUTHORITY, sizeof(SEED_EVENT_AUTHORITY)}, {bump, 1}};
  SolSignerSeeds signer = {seeds, 2};
  SolAccountMeta meta = {sink->event_authority->key, false, true};
  SolInstruction ix = {(SolPubkey *)sink->ctx->p.program_id, &meta, 1, (uint8_t *)bytes, len};
  return sol_invoke_signed(&ix, sink->event_authority, 1, &signer, 1);
}

static void put_tag_and(uint8_t *out, const uint8_t *discriminator) {
  for (uint64_t i = 0; i < 8; i++) {
    out[i] = EVENT_IX_TAG[i];
    out[8 + i] = discriminator[i];
  }
}

/* DepositEvent: leafIndex u32, commitment, depositor, amount, slot, nonce (100 bytes).
 * DepositFailedEvent: precommitment, commitment, depositor, amount, slot, nonce, reason u8 (129). */
uint64_t emit_deposit(const EventSink *sink, const DepositEventFields *e) {
  uint8_t out[EVENT_MAX] __attribute__((aligned(8)));
  uint64_t at = 16;
  if (e->reason == 0) {
    put_tag_and(out, DISC_DEPOSIT_EVENT);
    wr_u32(out + at, e->leaf_index);
    at += 4;
  } else {
    put_tag_and(out, DISC_DEPOSIT_FAILED_EVENT);
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
  return emit(sink, out, at);
}

/* WithdrawEvent: nullifierHash, recipient, amount, fee, relayer, changeCommitment,
 * changeLeafIndex u32 (156 bytes; v3 appended the last two). */
uint64_t emit_withdraw(const EventSink *sink, const WithdrawEventFields *e) {
  uint8_t out[8 + 156] __attribute__((aligned(8)));
  put_tag_and(out, DISC_WITHDRAW_EVENT);
  copy32(out + 16, e->nullifier_hash);
  copy32(out + 48, e->recipient);
  wr_u64(out + 80, e->amount);
  wr_u64(out + 88, e->fee);
  copy32(out + 96, e->relayer);
  copy32(out + 128, e->change_commitment);
  wr_u32(out + 160, e->change_leaf_index);
  return emit(sink, out, sizeof(out));
}

/* RevertEvent: depositor, amount, nonce, revertNullifier (88 bytes). */
uint64_t emit_revert(const EventSink *sink, const RevertEventFields *e) {
  uint8_t out[8 + 88] __attribute__((aligned(8)));
  put_tag_and(out, DISC_REVERT_EVENT);
  copy32(out + 16, e->depositor);
  wr_u64(out + 48, e->amount);
  wr_u64(out + 56, e->nonce);
  copy32(out + 64, e->revert_nullifier);
  return emit(sink, out, sizeof(out));
}

/*
 * The event CPI arriving: it proves nothing unless this program sent it, so it succeeds only
 * when accounts[0] signs and is a PDA ["__event_authority"] of this program: no top-level
 * transaction can sign for an address off the curve, and another program can sign only for its
 * own PDAs. A hash match at any bump is enough (no curve check): an address on the curve at
 * that hash has no known key, and this program signs at the canonical bump only. Anchor's
 * errors otherwise (AccountNotSigner, ConstraintSeeds), so a forged event fails its transaction.
 */
/* pda_hash_matches for the one seed, which with the bump fits one 18-byte slice: the sha256
 * syscall charges at least 10 CU per slice, so this saves 10 CU on each bump tried. */
static uint64_t check_event_authority(bool is_signer, const SolPubkey *key, const SolPubkey *program_id) {
  if (!is_signer) return anchor_error(AE_ACCOUNT_NOT_SIGNER, ACC_EVENT_AUTHORITY);
  uint8_t seed[sizeof(SEED_EVENT_AUTHORITY) + 1];
  for (uint64_t i = 0; i < sizeof(SEED_EVENT_AUTHORITY); i++) seed[i] = SEED_EVENT_AUTHORITY[i];
  SolBytes parts[3] = {{seed, sizeof(seed)}, {program_id->x, 32}, {PDA_MARKER, sizeof(PDA_MARKER)}};
  SolPubkey derived;
  for (uint64_t bump = 255;; bump--) {
    seed[sizeof(SEED_EVENT_AUTHORITY)] = (uint8_t)bump;
    sol_sha256(parts, 3, derived.x);
    if (SolPubkey_same(&derived, key)) return SUCCESS;
    if (bump == 0) return anchor_error(AE_CONSTRAINT_SEEDS, ACC_EVENT_AUTHORITY);
  }
}

uint64_t process_event(const Ctx *ctx) {
  if (ctx->p.ka_num < 1) return anchor_error(AE_ACCOUNT_NOT_ENOUGH_KEYS, ACC_NONE);
  const SolAccountInfo *authority = &ctx->p.ka[0];
  return check_event_authority(authority->is_signer, authority->key, ctx->p.program_id);
}

/*
 * The shape this program's own event CPI has (one account without data, then the data), read
 * straight from the loader's input before the entry point allocates and deserializes anything:
 * every deposit and withdrawal pays for this call. The offsets are sol_deserialize's: count u64,
 * then the account (dup marker, signer, writable, executable, 4 bytes, key @16, owner, lamports,
 * data length @88, its data and 10,240 bytes of room, rent epoch), then the data length and data,
 * then the program id. Anything else returns false and takes the ordinary path.
 */
bool event_fast_path(const uint8_t *input, uint64_t *result) {
  if (*(const uint64_t *)input != 1 || input[8] != 0xff || *(const uint64_t *)(input + 88) != 0) return false;
  const uint8_t *at = input + 96 + MAX_PERMITTED_DATA_INCREASE + 8;
  uint64_t len = *(const uint64_t *)at;
  const uint8_t *data = at + 8;
  if (len < 8 || !eq8(data, EVENT_IX_TAG)) return false;
  *result = check_event_authority(input[9] != 0, (const SolPubkey *)(input + 16), (const SolPubkey *)(data + len));
  return true;
}
