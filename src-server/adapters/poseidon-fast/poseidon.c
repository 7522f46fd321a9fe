/*
 * Poseidon over BN254's scalar field r, circomlib-compatible (circomlibjs's
 * optimized schedule: 8 full rounds, sparse partial rounds), for t = 3 and 4,
 * compiled to wasm32 by tools/poseidon/build-wasm.ts. Design notes (why it is fast in wasm):
 *
 * - Limbs: 9 x 29 bits in u64. wasm's i64.mul keeps only the low 64 bits, and a
 *   29x29-bit product is below 2^58, so a whole product (or a matrix row of up to
 *   4 of them) sums into 64-bit columns with no carry handling until the end
 *   (ZPrize 2022's winning wasm MSM did the same). 8 x 32 bits would need a carry
 *   split after every product, as wasmcurves (circomlibjs's field) does.
 * - Montgomery with R = 2^261, about 169 r: any column sum below r * R reduces to
 *   below 2r, so values stay below a few r between operations (no conditional
 *   subtractions), one reduction per matrix row instead of one per product, and
 *   elements 1.. of a partial round are updated every second round (W tables).
 * - i64.mul is the bottleneck (one per cycle on x86): r = 1 + 2^28 mod 2^29 makes
 *   the reduction's per-limb multiplier and r's low limb shifts, and products by
 *   constants use 3-chunk Karatsuba (54 multiplies, not 81) with the constants'
 *   chunk sums precomputed by tools/poseidon/gen-constants.ts, all in Montgomery form already.
 * - Measured (node 20, x86-64, 2026-11): a multiplication by a constant, reduced,
 *   about 33 ns; a squaring about 29 ns (first version, not re-measured);
 *   circomlibjs's whole 2-input permutation ~41 us, this one 19.4 us (hash2) and
 *   24.0 us (hash3) fully inlined, 17.2 us and 21.0 us with pow5 out of line.
 * - i64.mul is not the whole story: turning the reduction's 72 multiplies into
 *   xors (wrong answers, timing only) saved just 8%, while taking pow5 out of
 *   line saved 12%; V8's register allocation over the one huge inlined function
 *   (spills) costs more than the multiplies. Did not help (same or slower):
 *   -O2/-Os/-fno-unroll-loops/-fno-vectorize/-mcpu=generic, -msimd128 (slower),
 *   schoolbook instead of Karatsuba products (+9%), a product-scanning redc
 *   (same), redc, fsqr, mix or load/store out of line (same or slower), the
 *   empty asm barriers removed (same).
 */
typedef unsigned long long u64;
typedef long long i64;
typedef unsigned int u32;
typedef unsigned char u8;

/* A field element: 9 limbs of 29 bits (least significant first), top limb unmasked. */
typedef struct {
  u64 v[9];
} fe;
/* A double-width product: 18 column sums of 58-bit limb products, not carried yet. */
typedef struct {
  u64 v[18];
} wide;

/* A multiplicand prepared for the Karatsuba product: 9 limbs, then chunk sums 0+1, 0+2, 1+2 (3 limbs each). */
typedef struct {
  u64 v[18];
} kfe;
/* The six 3x3 chunk products of a Karatsuba product (or a sum of them), 5 columns each, before recombination. */
typedef struct {
  u64 p[6][5];
} kacc;

#include "poseidon-constants.h"

#define MASK 0x1fffffffULL
#define INLINE static inline __attribute__((always_inline))

/* t = a^2 with each cross product computed once (45 i64.mul). */
INLINE void sqr_to(wide *t, const fe *a) {
  u64 d[9];
#pragma clang loop unroll(full)
  for (int i = 0; i < 9; i++) d[i] = a->v[i] << 1;
#pragma clang loop unroll(full)
  for (int k = 0; k < 17; k++) {
    u64 s = 0;
#pragma clang loop unroll(full)
    for (int i = (k > 8 ? k - 8 : 0); 2 * i < k; i++) s += d[i] * a->v[k - i];
    if ((k & 1) == 0) s += a->v[k / 2] * a->v[k / 2];
    t->v[k] = s;
  }
  t->v[17] = 0;
}

/* The chunk sums of a variable multiplicand (limbs below 2^29, so sums below 2^30). */
INLINE void kprep(kfe *o, const fe *a) {
#pragma clang loop unroll(full)
  for (int k = 0; k < 9; k++) o->v[k] = a->v[k];
#pragma clang loop unroll(full)
  for (int k = 0; k < 3; k++) {
    o->v[9 + k] = a->v[k] + a->v[3 + k];
    o->v[12 + k] = a->v[k] + a->v[6 + k];
    o->v[15 + k] = a->v[3 + k] + a->v[6 + k];
  }
}

INLINE void mul33_add(u64 *r, const u64 *a, const u64 *b) {
  r[0] += a[0] * b[0];
  r[1] += a[0] * b[1] + a[1] * b[0];
  r[2] += a[0] * b[2] + a[1] * b[1] + a[2] * b[0];
  r[3] += a[1] * b[2] + a[2] * b[1];
  r[4] += a[2] * b[2];
}

INLINE void kacc_zero(kacc *k) {
#pragma clang loop unroll(full)
  for (int i = 0; i < 6; i++)
#pragma clang loop unroll(full)
    for (int j = 0; j < 5; j++) k->p[i][j] = 0;
}

/* k += a * b as six 3x3 chunk products (54 i64.mul instead of 81); a matrix row sums its products here and recombines once. */
INLINE void kacc_add(kacc *k, const kfe *a, const kfe *b) {
#pragma clang loop unroll(full)
  for (int i = 0; i < 6; i++) mul33_add(k->p[i], &a->v[3 * i], &b->v[3 * i]);
}

/*
 * Karatsuba recombination into columns. The subtractions may wrap mid-way:
 * u64 arithmetic is exact mod 2^64 and every true column sum is below 2^64.
 */
INLINE void kacc_finish(wide *t, const kacc *k) {
#pragma clang loop unroll(full)
  for (int i = 0; i < 18; i++) t->v[i] = 0;
#pragma clang loop unroll(full)
  for (int i = 0; i < 5; i++) {
    u64 p0 = k->p[0][i], p1 = k->p[1][i], p2 = k->p[2][i];
    t->v[i] += p0;
    t->v[3 + i] += k->p[3][i] - p0 - p1;
    t->v[6 + i] += k->p[4][i] - p0 - p2 + p1;
    t->v[9 + i] += k->p[5][i] - p1 - p2;
    t->v[12 + i] += p2;
  }
}

/*
 * Montgomery reduction: out = t / 2^261 mod r, carried into 29-bit limbs.
 * Output < t / 2^261 + r, so any t below r * 2^261 (about 169 r^2) gives
 * out < 2r: values stay below a few r between steps and no step needs a
 * conditional subtraction except the final output.
 */
INLINE void redc(fe *out, wide *t) {
#pragma clang loop unroll(full)
  for (int i = 0; i < 9; i++) {
    u64 ti = t->v[i];
    /*
     * r = 1 + 2^28 (mod 2^29), so the multiplier -1/r is 2^28 - 1 and r's low
     * limb is 2^28 + 1: shifts instead of two i64.mul per limb (i64.mul is the
     * bottleneck). The empty asm keeps the optimizer from folding them back into multiplies.
     */
    u64 hi = ti << 28;
    __asm__("" : "+r"(hi));
    u64 m = (hi - ti) & MASK;
    u64 mh = m << 28;
    __asm__("" : "+r"(mh));
    /* ti + m * r_0 is a multiple of 2^29 by the choice of m: carry its high part. */
    t->v[i + 1] += (ti + m + mh) >> 29;
#pragma clang loop unroll(full)
    for (int j = 1; j < 9; j++) t->v[i + j] += m * FIELD_R[0].v[j];
  }
  u64 c = 0;
#pragma clang loop unroll(full)
  for (int k = 0; k < 8; k++) {
    u64 x = t->v[9 + k] + c;
    out->v[k] = x & MASK;
    c = x >> 29;
  }
  out->v[8] = t->v[17] + c;
}

INLINE void fsqr(fe *out, const fe *a) {
  wide t;
  sqr_to(&t, a);
  redc(out, &t);
}

/* Limb by limb: a struct assignment would become a call to memcpy, which a libc-less module lacks. */
INLINE void fcopy(fe *a, const fe *b) {
#pragma clang loop unroll(full)
  for (int k = 0; k < 9; k++) a->v[k] = b->v[k];
}

/* a += b, carried (so the next product's limbs stay below 2^29). */
INLINE void fadd(fe *a, const fe *b) {
  u64 c = 0;
#pragma clang loop unroll(full)
  for (int k = 0; k < 8; k++) {
    u64 x = a->v[k] + b->v[k] + c;
    a->v[k] = x & MASK;
    c = x >> 29;
  }
  a->v[8] = a->v[8] + b->v[8] + c;
}

/* a - q*r for q = floor(a / 2^254): any a below 2^256 comes back below 2r. */
INLINE void shrink(fe *a) {
  const fe *m = &R_MULTIPLES[a->v[8] >> 22];
  i64 c = 0;
#pragma clang loop unroll(full)
  for (int k = 0; k < 8; k++) {
    i64 x = (i64)a->v[k] - (i64)m->v[k] + c;
    a->v[k] = (u64)x & MASK;
    c = x >> 29;
  }
  a->v[8] = (u64)((i64)a->v[8] - (i64)m->v[8] + c);
}

/*
 * x^5: the S-box. Kept out of line on purpose: inlined 80 times into one
 * huge function, its temporaries competed with the matrix accumulators for
 * V8's registers (spills); as a call the permutation ran 19.4 -> 17.2 us.
 */
static __attribute__((noinline)) void pow5(fe *x) {
  fe x2, x4;
  fsqr(&x2, x);
  fsqr(&x4, &x2);
  kfe a, b;
  kprep(&a, &x4);
  kprep(&b, x);
  kacc k;
  kacc_zero(&k);
  kacc_add(&k, &a, &b);
  wide t;
  kacc_finish(&t, &k);
  redc(x, &t);
}

/* 32 big-endian bytes (any value below 2^256) -> Montgomery form below 2r; the product by 2^522 mod r reduces mod r too. */
INLINE void load_be(fe *out, const u8 *p) {
  u64 w[4];
#pragma clang loop unroll(full)
  for (int i = 0; i < 4; i++) {
    u64 x = 0;
#pragma clang loop unroll(full)
    for (int b = 0; b < 8; b++) x = (x << 8) | p[8 * (3 - i) + b];
    w[i] = x;
  }
  fe a;
#pragma clang loop unroll(full)
  for (int k = 0; k < 9; k++) {
    int bit = 29 * k, word = bit >> 6, off = bit & 63;
    u64 x = w[word] >> off;
    if (off > 35 && word < 3) x |= w[word + 1] << (64 - off);
    a.v[k] = x & MASK;
  }
  kfe ka;
  kprep(&ka, &a);
  kacc k;
  kacc_zero(&k);
  kacc_add(&k, &ka, &MONT_R2[0]);
  wide t;
  kacc_finish(&t, &k);
  redc(out, &t);
}

/* Montgomery form -> canonical value below r, as 32 big-endian bytes. */
INLINE void store_be(u8 *p, const fe *a) {
  wide t;
#pragma clang loop unroll(full)
  for (int k = 0; k < 9; k++) t.v[k] = a->v[k];
#pragma clang loop unroll(full)
  for (int k = 9; k < 18; k++) t.v[k] = 0;
  fe x;
  redc(&x, &t); /* at most r, and r only for 0 */
  fe d;
  i64 c = 0;
#pragma clang loop unroll(full)
  for (int k = 0; k < 9; k++) {
    i64 y = (i64)x.v[k] - (i64)FIELD_R[0].v[k] + c;
    d.v[k] = (u64)y & MASK;
    c = y >> 29;
  }
  u64 keep = (u64)(c >> 63); /* all ones when x < r */
  u64 w[4] = {0, 0, 0, 0};
#pragma clang loop unroll(full)
  for (int k = 0; k < 9; k++) {
    u64 l = (x.v[k] & keep) | (d.v[k] & ~keep);
    int bit = 29 * k, word = bit >> 6, off = bit & 63;
    w[word] |= l << off;
    if (off > 35 && word < 3) w[word + 1] |= l >> (64 - off);
  }
#pragma clang loop unroll(full)
  for (int i = 0; i < 4; i++)
#pragma clang loop unroll(full)
    for (int b = 0; b < 8; b++) p[8 * (3 - i) + b] = (u8)(w[i] >> (56 - 8 * b));
}

/* new[i] = sum_j m[i][j] * s[j], one reduction per element. */
INLINE void mix(const int t, fe *s, const kfe *m) {
  kfe ks[4];
  for (int j = 0; j < t; j++) kprep(&ks[j], &s[j]);
  for (int i = 0; i < t; i++) {
    kacc k;
    kacc_zero(&k);
    for (int j = 0; j < t; j++) kacc_add(&k, &m[t * i + j], &ks[j]);
    wide acc;
    kacc_finish(&acc, &k);
    redc(&s[i], &acc);
  }
}

/* S-boxes on all elements, then the round constants (carried). */
INLINE void full_sbox(const int t, fe *s, const fe *c) {
  for (int i = 0; i < t; i++) {
    pow5(&s[i]);
    fadd(&s[i], &c[i]);
  }
}

/*
 * circomlibjs's poseidon_opt.js with initial state 0 and one output, for
 * width t (inputs t - 1, already in Montgomery form in s[1..t-1]).
 */
INLINE void permute(const int t, const int n_partial, fe *s, const fe *C, const kfe *S, const kfe *W, const kfe *M, const kfe *P, const fe *first0) {
  /* First full round: element 0 is the constant 0 + C[0], so its S-box output is precomputed. */
  for (int i = 1; i < t; i++) fadd(&s[i], &C[i]);
  for (int i = 1; i < t; i++) {
    pow5(&s[i]);
    fadd(&s[i], &C[t + i]);
  }
  fcopy(&s[0], first0);
  mix(t, s, M);
  for (int r = 1; r < 3; r++) {
    full_sbox(t, s, &C[(r + 1) * t]);
    mix(t, s, M);
  }
  full_sbox(t, s, &C[4 * t]);
  mix(t, s, P);

  const fe *cp = &C[5 * t];
  /*
   * Partial rounds in pairs: round r+1's element 0 reads elements 1.. as of
   * round r (plus x_r times the precomputed W[r]), so those are updated and
   * reduced once per two rounds.
   */
  const kfe *sp = S;
  kfe kx[2], ky;
  kacc k;
  wide acc;
  int r = 0;
  for (; r + 1 < n_partial; r += 2, sp += 2 * (2 * t - 1)) {
    const kfe *sq = sp + (2 * t - 1);
    for (int h = 0; h < 2; h++) {
      fe x;
      fcopy(&x, &s[0]);
      pow5(&x);
      fadd(&x, &cp[r + h]);
      kprep(&kx[h], &x);
      const kfe *row = h ? sq : sp;
      kacc_zero(&k);
      kacc_add(&k, &row[0], &kx[h]);
      for (int j = 1; j < t; j++) {
        kprep(&ky, &s[j]);
        kacc_add(&k, &row[j], &ky);
      }
      if (h) kacc_add(&k, &W[r], &kx[0]);
      kacc_finish(&acc, &k);
      redc(&s[0], &acc);
    }
    for (int j = 1; j < t; j++) {
      /* s[j] + x_r * S + x_r+1 * S': s[j] joins the upper half, so one reduction adds it (value below s[j] + 2r). */
      kacc_zero(&k);
      kacc_add(&k, &sp[t + j - 1], &kx[0]);
      kacc_add(&k, &sq[t + j - 1], &kx[1]);
      kacc_finish(&acc, &k);
#pragma clang loop unroll(full)
      for (int l = 0; l < 9; l++) acc.v[9 + l] += s[j].v[l];
      redc(&s[j], &acc);
      shrink(&s[j]);
    }
  }
  if (r < n_partial) {
    fe x;
    fcopy(&x, &s[0]);
    pow5(&x);
    fadd(&x, &cp[r]);
    kprep(&kx[0], &x);
    kacc_zero(&k);
    kacc_add(&k, &sp[0], &kx[0]);
    for (int j = 1; j < t; j++) {
      kprep(&ky, &s[j]);
      kacc_add(&k, &sp[j], &ky);
    }
    kacc_finish(&acc, &k);
    redc(&s[0], &acc);
    for (int j = 1; j < t; j++) {
      kacc_zero(&k);
      kacc_add(&k, &sp[t + j - 1], &kx[0]);
      kacc_finish(&acc, &k);
#pragma clang loop unroll(full)
      for (int l = 0; l < 9; l++) acc.v[9 + l] += s[j].v[l];
      redc(&s[j], &acc);
      shrink(&s[j]);
    }
  }

  const fe *c2 = &C[5 * t + n_partial];
  for (int r = 0; r < 3; r++) {
    full_sbox(t, s, &c2[r * t]);
    mix(t, s, M);
  }
  /* Last round: S-boxes, then only row 0 of the matrix (the one output). */
  kacc_zero(&k);
  for (int j = 0; j < t; j++) {
    pow5(&s[j]);
    kfe ks;
    kprep(&ks, &s[j]);
    kacc_add(&k, &M[j], &ks);
  }
  kacc_finish(&acc, &k);
  redc(&s[0], &acc);
}

static void hash_t3(const u8 *in, u8 *out) {
  fe s[3];
  load_be(&s[1], in);
  load_be(&s[2], in + 32);
  permute(3, T3_PARTIAL_ROUNDS, s, T3_C, T3_S, T3_W, T3_M, T3_P, &T3_FIRST0[0]);
  store_be(out, &s[0]);
}

static void hash_t4(const u8 *in, u8 *out) {
  fe s[4];
  load_be(&s[1], in);
  load_be(&s[2], in + 32);
  load_be(&s[3], in + 64);
  permute(4, T4_PARTIAL_ROUNDS, s, T4_C, T4_S, T4_W, T4_M, T4_P, &T4_FIRST0[0]);
  store_be(out, &s[0]);
}

/* The JS side's window into memory: inputs and outputs are copied here (fixed offsets, no allocator). */
#define IO_PAIRS 1024
static u8 io[IO_PAIRS * 96];

__attribute__((export_name("io_buffer"))) u8 *io_buffer(void) { return io; }
__attribute__((export_name("io_pairs"))) u32 io_pairs(void) { return IO_PAIRS; }

/* Poseidon(a, b): a, b as 64 big-endian bytes at in, 32 bytes to out. */
__attribute__((export_name("hash2"))) void hash2(const u8 *in, u8 *out) { hash_t3(in, out); }

/* Poseidon(a, b, c): 96 bytes at in, 32 bytes to out. */
__attribute__((export_name("hash3"))) void hash3(const u8 *in, u8 *out) { hash_t4(in, out); }

/* count pairs (64 bytes each) at in -> count hashes (32 bytes each) at out; out may equal in. */
__attribute__((export_name("hash_pairs"))) void hash_pairs(const u8 *in, u32 count, u8 *out) {
  for (u32 k = 0; k < count; k++) hash_t3(in + 64 * k, out + 32 * k);
}
