/*
 * Groth16 verification on the alt_bn128 syscalls (see groth16.h).
 *
 * Checked equation (snarkjs's Groth16):
 *   e(-A, B) * e(alpha, beta) * e(vk_x, gamma) * e(C, delta) == 1,
 *   vk_x = IC[0] + sum(input[i] * IC[i + 1]).
 * The syscall takes a product of pairings and answers whether it is one, so the
 * usual e(A, B) == e(alpha, beta) e(vk_x, gamma) e(C, delta) is moved to one side by
 * negating A, the only point negated at run time (a G1 negation is one subtraction).
 *
 * Cost, measured in LiteSVM (programs/groth16-harness): protocol v2's six inputs cost
 * ~100.0k CU per verification, of which 98.7k are syscall fees (6 MUL x 3,840, 6 ADD x 334,
 * the 4-pair pairing ~73.6k); v3's seventh input adds one MUL and one ADD (~4.2k). A zero
 * input skips its MUL and ADD.
 */
#include "groth16.h"
#include "verifying_key.h"

_Static_assert(VK_N_PUBLIC == GROTH16_PUBLIC_INPUTS, "verifying_key.h is for another number of public inputs: rerun npm run gen:vkey");

#define PAIR_BYTES 192 /* G1 64 || G2 128 */

/* BN254 scalar field r, big-endian. */
static const uint8_t SCALAR_MODULUS[32] = {
  0x30, 0x64, 0x4e, 0x72, 0xe1, 0x31, 0xa0, 0x29, 0xb8, 0x50, 0x45, 0xb6, 0x81, 0x81, 0x58, 0x5d,
  0x28, 0x33, 0xe8, 0x48, 0x79, 0xb9, 0x70, 0x91, 0x43, 0xe1, 0xf5, 0x93, 0xf0, 0x00, 0x00, 0x01,
};

/* BN254 base field q, big-endian. */
static const uint8_t BASE_MODULUS[32] = {
  0x30, 0x64, 0x4e, 0x72, 0xe1, 0x31, 0xa0, 0x29, 0xb8, 0x50, 0x45, 0xb6, 0x81, 0x81, 0x58, 0x5d,
  0x97, 0x81, 0x6a, 0x91, 0x68, 0x71, 0xca, 0x8d, 0x3c, 0x20, 0x8c, 0x16, 0xd8, 0x7c, 0xfd, 0x47,
};

/* All scratch in one heap block: the 768-byte pairing input alone is more than
 * clang 14's 512-byte BPF stack frame. */
typedef struct {
  /* -A||B | alpha||beta | vk_x||gamma | C||delta: the pairing syscall's input. */
  uint8_t pairing[4 * PAIR_BYTES];
  /* IC[i] || input: the MUL syscall's input. */
  uint8_t mul_in[96];
  /* accumulator || input * IC[i]: the ADD syscall's input. */
  uint8_t add_in[128];
} Scratch;

#define OFF_NEG_A (0 * PAIR_BYTES)
#define OFF_B (0 * PAIR_BYTES + 64)
#define OFF_ALPHA_BETA (1 * PAIR_BYTES)
#define OFF_VK_X (2 * PAIR_BYTES)
#define OFF_GAMMA (2 * PAIR_BYTES + 64)
#define OFF_C (3 * PAIR_BYTES)
#define OFF_DELTA (3 * PAIR_BYTES + 64)

/* v < m for 32-byte big-endian values. Byte by byte: it almost always decides on
 * the first byte, and the caller's bytes may be unaligned. */
static uint64_t below(const uint8_t *v, const uint8_t *m) {
  for (uint64_t i = 0; i < 32; i++) {
    if (v[i] != m[i]) {
      return v[i] < m[i];
    }
  }
  return 0;
}

static const uint8_t ZERO_32[32] = {0};
/* The pairing syscall's answer when the product is one: 1, big-endian. */
static const uint8_t ONE_32[32] = {
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
};

/* sol_memcmp costs a flat ~10 CU for 32 bytes; the byte loop it replaces cost ~65. */
static uint64_t is_zero_32(const uint8_t *v) {
  return sol_memcmp(v, ZERO_32, 32) == 0;
}

/* out = q - y (y < q), and 0 for y = 0: the point at infinity is encoded (0, 0) and
 * must stay so, and q itself would be refused as a coordinate. */
static void negate_y(const uint8_t *y, uint8_t *out) {
  if (is_zero_32(y)) {
    for (uint64_t i = 0; i < 32; i++) {
      out[i] = 0;
    }
    return;
  }
  uint64_t borrow = 0;
  for (uint64_t k = 32; k > 0; k--) {
    uint64_t i = k - 1;
    /* Unsigned 64-bit difference: it wraps (bit 63 set) exactly when a borrow is due. */
    uint64_t d = (uint64_t)BASE_MODULUS[i] - (uint64_t)y[i] - borrow;
    out[i] = (uint8_t)(d & 0xff);
    borrow = d >> 63;
  }
}

/* Writes vk_x = IC[0] + sum(input[i] * IC[i + 1]) into s->pairing at OFF_VK_X. */
static uint64_t compute_vk_x(Scratch *s, const uint8_t inputs[GROTH16_PUBLIC_INPUTS][32]) {
  uint8_t *vk_x = s->pairing + OFF_VK_X;
  sol_memcpy(vk_x, VK_IC[0], 64);
  for (uint64_t i = 0; i < GROTH16_PUBLIC_INPUTS; i++) {
    /* 0 * IC = infinity, the identity of the sum: skipping saves ~4.2k CU and is
     * exact. (Only a zero input is skipped; every other value takes the MUL.) */
    if (is_zero_32(inputs[i])) {
      continue;
    }
    sol_memcpy(s->mul_in, VK_IC[i + 1], 64);
    sol_memcpy(s->mul_in + 64, inputs[i], 32);
    if (sol_alt_bn128_group_op(ALT_BN128_MUL, s->mul_in, 96, s->add_in + 64) != 0) {
      return GROTH16_ERR_MUL;
    }
    /* The accumulator is copied beside the product rather than having the syscall
     * write over its own input, which the runtime does not promise to allow. */
    sol_memcpy(s->add_in, vk_x, 64);
    if (sol_alt_bn128_group_op(ALT_BN128_ADD, s->add_in, 128, vk_x) != 0) {
      return GROTH16_ERR_ADD;
    }
  }
  return GROTH16_OK;
}

uint64_t groth16_verify(const uint8_t proof[GROTH16_PROOF_BYTES],
                        const uint8_t public_inputs[GROTH16_PUBLIC_INPUTS][32]) {
  /* Range checks first: they are the cheap refusals, and the MUL syscall would
   * silently reduce an input >= r, giving two encodings of one statement. */
  for (uint64_t i = 0; i < GROTH16_PUBLIC_INPUTS; i++) {
    if (!below(public_inputs[i], SCALAR_MODULUS)) {
      return GROTH16_ERR_INPUT_NOT_IN_FIELD;
    }
  }
  for (uint64_t i = 0; i < GROTH16_PROOF_BYTES; i += 32) {
    if (!below(proof + i, BASE_MODULUS)) {
      return GROTH16_ERR_COORDINATE_NOT_IN_FIELD;
    }
  }

  Scratch *s = (Scratch *)sol_heap_alloc(sizeof(Scratch));
  if (s == NULL) {
    return GROTH16_ERR_NO_HEAP;
  }

  uint64_t err = compute_vk_x(s, public_inputs);
  if (err != GROTH16_OK) {
    return err;
  }

  uint8_t *p = s->pairing;
  sol_memcpy(p + OFF_NEG_A, proof, 32);
  negate_y(proof + 32, p + OFF_NEG_A + 32);
  sol_memcpy(p + OFF_B, proof + 64, 128);
  sol_memcpy(p + OFF_ALPHA_BETA, VK_ALPHA_BETA, PAIR_BYTES);
  sol_memcpy(p + OFF_GAMMA, VK_GAMMA, 128);
  sol_memcpy(p + OFF_C, proof + 192, 64);
  sol_memcpy(p + OFF_DELTA, VK_DELTA, 128);

  /* The 32-byte result reuses mul_in, no longer needed. */
  uint8_t *result = s->mul_in;
  if (sol_alt_bn128_group_op(ALT_BN128_PAIRING, p, 4 * PAIR_BYTES, result) != 0) {
    return GROTH16_ERR_PAIRING_INPUT;
  }
  return sol_memcmp(result, ONE_32, 32) == 0 ? GROTH16_OK : GROTH16_ERR_PAIRING_NOT_ONE;
}
