/*
 * cp_math.h -- exact constant-product arithmetic and log formatting for cp-swap, in 64-bit
 * operations only (clang 14's BPF target has no __int128, and SBPF v0 sign-extends 32-bit
 * ALU results, so every operation here is on uint64_t).
 *
 *   cp_amount_out(amountIn, rIn, rOut) = floor(amountIn*997*rOut / (rIn*1000 + amountIn*997))
 *
 * exactly as src-shared/swap/constant-product.ts cpAmountOut computes it with bigint.
 * Bounds: amountIn*997 < 2^74, so the numerator is < 2^138 (three 64-bit limbs) and the
 * denominator < 2^75 (two limbs); the quotient is <= rOut < 2^64 because the numerator is
 * below denominator * rOut.
 */
#ifndef CP_MATH_H
#define CP_MATH_H

#include <solana_sdk.h>

/* A 128-bit unsigned value as two 64-bit limbs. */
typedef struct {
  uint64_t hi;
  uint64_t lo;
} cp_u128;

/* a * b as a full 128-bit product (schoolbook on 32-bit halves). */
static inline cp_u128 cp_mul64(uint64_t a, uint64_t b) {
  uint64_t a_lo = a & 0xffffffffULL, a_hi = a >> 32;
  uint64_t b_lo = b & 0xffffffffULL, b_hi = b >> 32;
  uint64_t ll = a_lo * b_lo;
  uint64_t lh = a_lo * b_hi;
  uint64_t hl = a_hi * b_lo;
  uint64_t hh = a_hi * b_hi;
  /* middle column: at most 3 * (2^32 - 1), no overflow */
  uint64_t mid = (ll >> 32) + (lh & 0xffffffffULL) + (hl & 0xffffffffULL);
  cp_u128 r;
  r.lo = (mid << 32) | (ll & 0xffffffffULL);
  r.hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
  return r;
}

/* x + y (the caller guarantees no overflow past 128 bits). */
static inline cp_u128 cp_add128(cp_u128 x, cp_u128 y) {
  cp_u128 r;
  r.lo = x.lo + y.lo;
  r.hi = x.hi + y.hi + (r.lo < x.lo ? 1 : 0);
  return r;
}

/*
 * floor(amount_in*997*r_out / (r_in*1000 + amount_in*997)). The caller has refused
 * amount_in == 0 and r_in == 0, so the denominator is positive.
 */
static uint64_t __attribute__((noinline)) cp_amount_out(uint64_t amount_in, uint64_t r_in, uint64_t r_out) {
  cp_u128 in_fee = cp_mul64(amount_in, 997); /* < 2^74 */
  cp_u128 den = cp_add128(cp_mul64(r_in, 1000), in_fee); /* < 2^75 */
  /* numerator n2:n1:n0 = in_fee * r_out */
  cp_u128 p_lo = cp_mul64(in_fee.lo, r_out);
  cp_u128 p_hi = cp_mul64(in_fee.hi, r_out); /* in_fee.hi < 2^10, so p_hi < 2^74 */
  uint64_t n0 = p_lo.lo;
  uint64_t n1 = p_lo.hi + p_hi.lo;
  uint64_t n2 = p_hi.hi + (n1 < p_lo.hi ? 1 : 0);
  /*
   * Restoring division, one quotient bit per step. The quotient fits in 64 bits, so the
   * numerator's top 128 bits (n2:n1) are already below the denominator: start the remainder
   * there and shift in n0's 64 bits. The remainder stays below 2 * den < 2^76.
   */
  uint64_t r_hi = n2, r_lo = n1, q = 0;
  for (uint64_t i = 0; i < 64; i++) {
    r_hi = (r_hi << 1) | (r_lo >> 63);
    r_lo = (r_lo << 1) | (n0 >> 63);
    n0 <<= 1;
    q <<= 1;
    if (r_hi > den.hi || (r_hi == den.hi && r_lo >= den.lo)) {
      uint64_t borrow = r_lo < den.lo ? 1 : 0;
      r_lo -= den.lo;
      r_hi = r_hi - den.hi - borrow;
      q |= 1;
    }
  }
  return q;
}

/* ---- log formatting ---------------------------------------------------------------------- */

/* Writes v in decimal at out; returns the number of characters (1..20). */
static uint64_t __attribute__((noinline)) cp_fmt_u64(uint64_t v, char *out) {
  char tmp[20];
  uint64_t n = 0;
  do {
    tmp[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v != 0);
  for (uint64_t i = 0; i < n; i++) out[i] = tmp[n - 1 - i];
  return n;
}

static const char CP_BASE58_ALPHABET[58] = {
  '1', '2', '3', '4', '5', '6', '7', '8', '9', 'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'J', 'K', 'L',
  'M', 'N', 'P', 'Q', 'R', 'S', 'T', 'U', 'V', 'W', 'X', 'Y', 'Z', 'a', 'b', 'c', 'd', 'e', 'f', 'g',
  'h', 'i', 'j', 'k', 'm', 'n', 'o', 'p', 'q', 'r', 's', 't', 'u', 'v', 'w', 'x', 'y', 'z',
};

/* 58^5: the largest power of 58 below 2^32, so (remainder << 32) | limb fits in 64 bits. */
#define CP_B58_CHUNK 656356768ULL

/* Writes the base58 text of a 32-byte key at out (as web3.js's toBase58); returns its length (<= 44). */
static uint64_t __attribute__((noinline)) cp_fmt_base58(const SolPubkey *key, char *out) {
  const uint8_t *b = key->x;
  uint64_t zeros = 0;
  while (zeros < 32 && b[zeros] == 0) zeros++;
  /* the key as eight big-endian 32-bit limbs */
  uint64_t limb[8];
  for (uint64_t i = 0; i < 8; i++) {
    limb[i] = ((uint64_t)b[4 * i] << 24) | ((uint64_t)b[4 * i + 1] << 16) | ((uint64_t)b[4 * i + 2] << 8) |
              (uint64_t)b[4 * i + 3];
  }
  /* base58 digits, least significant first: 9 chunks of 5 cover 45 >= 44 digits */
  uint8_t digits[45];
  uint64_t nd = 0;
  uint64_t first = 0; /* limbs before `first` are zero */
  while (first < 8 && limb[first] == 0) first++;
  while (first < 8) {
    uint64_t rem = 0;
    for (uint64_t i = first; i < 8; i++) {
      uint64_t cur = (rem << 32) | limb[i];
      limb[i] = cur / CP_B58_CHUNK;
      rem = cur % CP_B58_CHUNK;
    }
    while (first < 8 && limb[first] == 0) first++;
    for (uint64_t k = 0; k < 5; k++) {
      digits[nd++] = (uint8_t)(rem % 58);
      rem /= 58;
    }
  }
  /* drop the most significant zero digits the last chunk padded in */
  while (nd > 0 && digits[nd - 1] == 0) nd--;
  uint64_t n = 0;
  for (uint64_t i = 0; i < zeros; i++) out[n++] = '1';
  while (nd > 0) out[n++] = CP_BASE58_ALPHABET[digits[--nd]];
  return n;
}

#endif /* CP_MATH_H */
