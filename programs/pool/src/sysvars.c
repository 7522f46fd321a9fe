/*
 * The Rent and Clock sysvars, read through their syscalls (no sysvar accounts in the
 * instructions' account lists).
 */
#include "pool.h"

/* Rent::minimum_balance: ((128 + len) * lamports_per_byte_year) * exemption_threshold, where
 * the threshold is an f64 (2.0 on every cluster). There is no floating point here: the f64 is
 * taken apart into mantissa * 2^exponent and applied exactly (128-bit product, then shift),
 * which is the f64 computation's value whenever that one is exact, as it is for 2.0. */
uint64_t rent_exempt_minimum(const Ctx *ctx, uint64_t data_len, uint64_t *lamports) {
  SolRent *rent = ctx->rent;
  if (rent->lamports_per_byte_year == 0 && sol_get_rent_sysvar(rent) != 0) return ERROR_UNSUPPORTED_SYSVAR;
  uint64_t bits = rd_u64(rent->exemption_threshold);
  uint64_t exponent = (bits >> 52) & 0x7ff;
  uint64_t mantissa = bits & 0xfffffffffffffULL;
  uint64_t base = (128 + data_len) * rent->lamports_per_byte_year;
  if ((bits >> 63) != 0 || exponent == 0x7ff) return ERROR_INVALID_ARGUMENT; /* negative, inf, NaN */
  if (exponent == 0) {
    *lamports = 0; /* subnormal: below 2^-1022 */
    return SUCCESS;
  }
  mantissa |= 1ULL << 52;
  /* value = base * mantissa * 2^(exponent - 1075): 128-bit product in 32-bit limbs. */
  uint64_t a_lo = base & 0xffffffff, a_hi = base >> 32;
  uint64_t b_lo = mantissa & 0xffffffff, b_hi = mantissa >> 32;
  uint64_t ll = a_lo * b_lo, lh = a_lo * b_hi, hl = a_hi * b_lo, hh = a_hi * b_hi;
  uint64_t mid = (ll >> 32) + (lh & 0xffffffff) + (hl & 0xffffffff);
  uint64_t lo = (ll & 0xffffffff) | (mid << 32);
  uint64_t hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
  if (exponent >= 1075) {
    uint64_t shift = exponent - 1075;
    if (hi != 0 || shift >= 64 || (shift > 0 && (lo >> (64 - shift)) != 0)) return ERROR_ARITHMETIC_OVERFLOW;
    *lamports = lo << shift;
    return SUCCESS;
  }
  uint64_t shift = 1075 - exponent;
  if (shift >= 128) {
    *lamports = 0;
  } else if (shift >= 64) {
    *lamports = hi >> (shift - 64);
  } else if (shift == 0) {
    *lamports = lo;
  } else {
    if ((hi >> shift) != 0) return ERROR_ARITHMETIC_OVERFLOW;
    *lamports = (lo >> shift) | (hi << (64 - shift));
  }
  return SUCCESS;
}

uint64_t load_clock(SolClock *clock) {
  if (sol_get_clock_sysvar(clock) != 0) return ERROR_UNSUPPORTED_SYSVAR;
  return SUCCESS;
}
