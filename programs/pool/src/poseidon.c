/*
 * Field elements and Poseidon (BN254, x^5, circomlib's constants, big-endian: the poseidon
 * syscall). Every input is passed as a full 32-byte big-endian word.
 */
#include "pool.h"

bool is_canonical_field(const uint8_t *x) {
  for (uint64_t i = 0; i < 32; i++) {
    if (x[i] != FIELD_MODULUS[i]) return x[i] < FIELD_MODULUS[i];
  }
  return false; /* x == r */
}

void u64_field(uint64_t v, uint8_t out[32]) {
  if (((uint64_t)out & 7) == 0) {
    uint64_t *w = (uint64_t *)out;
    w[0] = 0;
    w[1] = 0;
    w[2] = 0;
    w[3] = __builtin_bswap64(v); /* one `be64` instruction */
    return;
  }
  for (uint64_t i = 0; i < 24; i++) out[i] = 0;
  for (uint64_t i = 0; i < 8; i++) out[31 - i] = (uint8_t)(v >> (8 * i));
}

uint64_t poseidon(const SolBytes *vals, uint64_t n, uint8_t out[32]) {
  /* The syscall refuses an input >= r; callers only pass canonical values, so a refusal is a
   * broken invariant and fails the instruction. */
  if (sol_poseidon(POSEIDON_PARAMETERS_BN254_X5, POSEIDON_ENDIANNESS_BIG_ENDIAN, vals, n, out) != 0) return ERROR_INVALID_ARGUMENT;
  return SUCCESS;
}

uint64_t poseidon2(const uint8_t *a, const uint8_t *b, uint8_t out[32]) {
  SolBytes vals[2] = {{a, 32}, {b, 32}};
  return poseidon(vals, 2, out);
}

uint64_t pubkey_field(const uint8_t *key, uint8_t out[32]) {
  /* hi = key[0..16] and lo = key[16..32], each as a 32-byte big-endian word (both < 2^128 < r). */
  uint64_t words[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  uint8_t *w = (uint8_t *)words;
  if (((uint64_t)key & 7) == 0) {
    const uint64_t *k = (const uint64_t *)key;
    words[2] = k[0];
    words[3] = k[1];
    words[6] = k[2];
    words[7] = k[3];
  } else {
    sol_memcpy(w + 16, key, 16);
    sol_memcpy(w + 48, key + 16, 16);
  }
  return poseidon2(w, w + 32, out);
}
