/*
 * Multi-scalar multiplication on BN254 (G1 over Fq, G2 over Fq2) for the SDK's
 * Groth16 prover, compiled to wasm32 by tools/msm/build-wasm.ts. Same input
 * layout as ffjavascript's multiExpAffine: affine points in Montgomery form
 * with R = 2^256, 32-byte little-endian coordinates (x then y; Fq2 as c0, c1),
 * zeros for the point at infinity; 32-byte little-endian scalars in standard
 * form. The answer is the affine sum in the same encoding.
 *
 * Why it is faster than ffjavascript's MSM (docs/decisions.md):
 * - Fq elements are 9 limbs of 29 bits, so a Montgomery product adds 64-bit
 *   partial products without a carry per step (wasm has no add-with-carry);
 * - Pippenger with signed digits (half the buckets), and the buckets summed in
 *   affine coordinates, a batch of additions sharing one inversion
 *   (Montgomery's trick): about 6 multiplications per addition, where a mixed
 *   Jacobian addition costs 11;
 * - points at infinity are dropped when a point set is loaded, so the zkey's
 *   unused B rows cost nothing per proof.
 */

typedef unsigned int u32;
typedef int i32;
typedef unsigned long long u64;
typedef long long i64;
typedef unsigned char u8;

/* Limb loops: fully unrolled, so the limbs live in locals. */
#define UNROLL _Pragma("clang loop unroll(full)")
#define EXPORT(name) __attribute__((export_name(#name)))
#define EXPORT_AS(str) __attribute__((export_name(str)))

/* No libc: clang lowers struct copies to these. */
void *memcpy(void *dst, const void *src, unsigned long n) {
  u8 *d = (u8 *)dst;
  const u8 *s = (const u8 *)src;
  for (unsigned long i = 0; i < n; i++) d[i] = s[i];
  return dst;
}
void *memset(void *dst, int c, unsigned long n) {
  u8 *d = (u8 *)dst;
  for (unsigned long i = 0; i < n; i++) d[i] = (u8)c;
  return dst;
}

/* ---- memory: one bump allocator; a proof's scratch is released after each MSM ---- */

extern u8 __heap_base;
static u32 heap_top;

EXPORT(msm_alloc) u32 msm_alloc(u32 size) {
  if (!heap_top) heap_top = (u32)&__heap_base;
  u32 p = (heap_top + 15u) & ~15u;
  u64 end = (u64)p + size;
  u64 have = (u64)__builtin_wasm_memory_size(0) * 65536u;
  if (end > have) {
    u64 pages = (end - have + 65535u) / 65536u;
    if (__builtin_wasm_memory_grow(0, (unsigned long)pages) == (unsigned long)-1) return 0;
  }
  heap_top = (u32)end;
  return p;
}
EXPORT(msm_mark) u32 msm_mark(void) {
  if (!heap_top) heap_top = (u32)&__heap_base;
  return heap_top;
}
EXPORT(msm_release) void msm_release(u32 mark) { heap_top = mark; }

/* ---- Fq (coordinates) and Fr (scalars): one template, two moduli ---- */

#define NL 9
#define LB 29
#define MASK 0x1fffffffu

typedef struct {
  u32 v[NL];
} limbs;
typedef limbs fq;
typedef limbs fr;

static const limbs fq_P = {{0x187cfd47, 0x10460b6, 0x1c72a34f, 0x2d522d0, 0x1585d978, 0x2db40c0, 0xa6e141, 0xe5c2634, 0x30644e}};
static const limbs fr_P = {{0x10000001, 0x1f0fac9f, 0xe5c2450, 0x7d090f3, 0x1585d283, 0x2db40c0, 0xa6e141, 0xe5c2634, 0x30644e}};

#define F(name) fq_##name
#include "msm-field.h"
#undef F
#define F(name) fr_##name
#include "msm-field.h"
#undef F

/* ---- Fq2 = Fq[u]/(u^2 + 1) ---- */

typedef struct {
  fq c0, c1;
} fq2;

static inline void fq2_add(fq2 *r, const fq2 *a, const fq2 *b) {
  fq_add(&r->c0, &a->c0, &b->c0);
  fq_add(&r->c1, &a->c1, &b->c1);
}
static inline void fq2_sub(fq2 *r, const fq2 *a, const fq2 *b) {
  fq_sub(&r->c0, &a->c0, &b->c0);
  fq_sub(&r->c1, &a->c1, &b->c1);
}
static inline void fq2_neg(fq2 *r, const fq2 *a) {
  fq_neg(&r->c0, &a->c0);
  fq_neg(&r->c1, &a->c1);
}
static inline void fq2_dbl(fq2 *r, const fq2 *a) { fq2_add(r, a, a); }
/* Karatsuba: three Fq products. */
static inline void fq2_mul(fq2 *r, const fq2 *a, const fq2 *b) {
  fq t0, t1, sa, sb, t2;
  fq_mul(&t0, &a->c0, &b->c0);
  fq_mul(&t1, &a->c1, &b->c1);
  fq_add(&sa, &a->c0, &a->c1);
  fq_add(&sb, &b->c0, &b->c1);
  fq_mul(&t2, &sa, &sb);
  fq_sub(&r->c0, &t0, &t1);
  fq_sub(&t2, &t2, &t0);
  fq_sub(&r->c1, &t2, &t1);
}
/* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u: two Fq products. */
static inline void fq2_sqr(fq2 *r, const fq2 *a) {
  fq s, d, m;
  fq_add(&s, &a->c0, &a->c1);
  fq_sub(&d, &a->c0, &a->c1);
  fq_mul(&m, &a->c0, &a->c1);
  fq_mul(&r->c0, &s, &d);
  fq_dbl(&r->c1, &m);
}
static inline int fq2_eq(const fq2 *a, const fq2 *b) { return fq_eq(&a->c0, &b->c0) & fq_eq(&a->c1, &b->c1); }
static inline int fq2_is_zero(const fq2 *a) { return fq_is_zero(&a->c0) & fq_is_zero(&a->c1); }
static void fq2_inv(fq2 *r, const fq2 *a) {
  fq n, t, i;
  fq_sqr(&n, &a->c0);
  fq_sqr(&t, &a->c1);
  fq_add(&n, &n, &t);
  fq_inv(&i, &n);
  fq_mul(&r->c0, &a->c0, &i);
  fq_mul(&t, &a->c1, &i);
  fq_neg(&r->c1, &t);
}
static fq2 FQ2_ONE;

/* ---- scalars: signed base-2^c digits ---- */

/* Bits [off, off + c) of a 256-bit little-endian scalar (c <= 16). */
static inline u32 scalar_bits(const u32 *w, int off, int c) {
  int wi = off >> 5, sh = off & 31;
  u64 v = w[wi];
  if (wi + 1 < 8) v |= (u64)w[wi + 1] << 32;
  return (u32)(v >> sh) & ((1u << c) - 1u);
}

/* The window width for n points: measured (tools/msm, docs/decisions.md). */
static int window_bits(u32 n) {
  if (n < 32) return 3;
  if (n < 256) return 5;
  if (n < 1024) return 7;
  if (n < 2048) return 8;
  if (n < 4096) return 9;
  if (n < 32768) return 10;
  return 11;
}

/* ---- the two curves: one template, two fields ---- */

/* Additions per inversion in the bucket sums. */
#define CHUNK 2048
/* What each queued pair of the bucket sums turns out to be. */
enum { K_ADD = 0, K_DBL = 1, K_COPY_A = 2, K_COPY_B = 3, K_INF = 4 };


#define FE fq
#define FE_ADD fq_add
#define FE_SUB fq_sub
#define FE_NEG fq_neg
#define FE_DBL fq_dbl
#define FE_MUL fq_mul
#define FE_SQR fq_sqr
#define FE_EQ fq_eq
#define FE_IS_ZERO fq_is_zero
#define FE_INV fq_inv
#define FE_ONE fq_one
#define FE_WORDS 1
#define CURVE(name) g1_##name
#include "msm-curve.h"
#undef FE
#undef FE_ADD
#undef FE_SUB
#undef FE_NEG
#undef FE_DBL
#undef FE_MUL
#undef FE_SQR
#undef FE_EQ
#undef FE_IS_ZERO
#undef FE_INV
#undef FE_ONE
#undef FE_WORDS
#undef CURVE

#define FE fq2
#define FE_ADD fq2_add
#define FE_SUB fq2_sub
#define FE_NEG fq2_neg
#define FE_DBL fq2_dbl
#define FE_MUL fq2_mul
#define FE_SQR fq2_sqr
#define FE_EQ fq2_eq
#define FE_IS_ZERO fq2_is_zero
#define FE_INV fq2_inv
#define FE_ONE FQ2_ONE
#define FE_WORDS 2
#define CURVE(name) g2_##name
#include "msm-curve.h"

/* ---- set-up ---- */

EXPORT(msm_init) void msm_init(void) {
  fq_init();
  fr_init();
  FQ2_ONE.c0 = fq_one;
  FQ2_ONE.c1 = (fq){{0}};
}

#include "msm-qap.h"
