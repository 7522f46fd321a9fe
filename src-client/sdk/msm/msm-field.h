/*
 * One prime field below 2^254 (included by msm.c for Fq and Fr): Montgomery
 * form with R = 2^261 in 9 limbs of 29 bits, always canonical (< m). F(name)
 * names this field's functions and constants; F(P) is its modulus.
 */


static u32 F(mu);       /* -m^-1 mod 2^29 */
static limbs F(one);    /* 2^261 mod m: one in Montgomery form */
static limbs F(c266); /* 2^266 mod m: an element in ffjavascript's form (x·2^256) times this, Montgomery-reduced, is x·2^261 */
static limbs F(c256);/* 2^256 mod m: the way back */
static limbs F(c271); /* 2^271 mod m: a zkey QAP coefficient (x·2^512) times this, Montgomery-reduced, is x·2^522, whose product with a standard-form value is Montgomery */

static inline void F(reduce_once)(limbs *r, const u32 *t) {
  u32 d[NL];
  i32 br = 0;
  UNROLL for (int j = 0; j < NL; j++) {
    i32 s = (i32)t[j] - (i32)F(P).v[j] + br;
    d[j] = (u32)s & MASK;
    br = s >> LB;
  }
  u32 keep = (u32)br; /* all ones when t < p */
  UNROLL for (int j = 0; j < NL; j++) r->v[j] = (t[j] & keep) | (d[j] & ~keep);
}

static inline void F(add)(limbs *r, const limbs *a, const limbs *b) {
  u32 t[NL];
  u32 c = 0;
  UNROLL for (int j = 0; j < NL; j++) {
    u32 s = a->v[j] + b->v[j] + c;
    t[j] = s & MASK;
    c = s >> LB;
  }
  F(reduce_once)(r, t);
}

static inline void F(sub)(limbs *r, const limbs *a, const limbs *b) {
  u32 t[NL];
  i32 br = 0;
  UNROLL for (int j = 0; j < NL; j++) {
    i32 s = (i32)a->v[j] - (i32)b->v[j] + br;
    t[j] = (u32)s & MASK;
    br = s >> LB;
  }
  u32 addp = (u32)br; /* all ones when a < b */
  u32 c = 0;
  UNROLL for (int j = 0; j < NL; j++) {
    u32 s = t[j] + (F(P).v[j] & addp) + c;
    r->v[j] = s & MASK;
    c = s >> LB;
  }
}

static inline void F(neg)(limbs *r, const limbs *a) {
  limbs z = {{0}};
  F(sub)(r, &z, a);
}

static inline void F(dbl)(limbs *r, const limbs *a) { F(add)(r, a, a); }

/*
 * r = a·b·2^-261 mod p. Each round adds a_i·b and m·p (products below 2^58) into
 * 64-bit accumulators and carries only the lowest one, so 18 rounds' worth of
 * products stay below 2^63 and the carries are resolved once at the end.
 */
static inline void F(mul)(limbs *r, const limbs *a, const limbs *b) {
  u64 t[NL];
  UNROLL for (int j = 0; j < NL; j++) t[j] = 0;
  UNROLL for (int i = 0; i < NL; i++) {
    u64 ai = a->v[i];
    u64 x = t[0] + ai * b->v[0];
    u64 m = ((u32)x * F(mu)) & MASK;
    x += m * F(P).v[0];
    u64 carry = x >> LB;
    UNROLL for (int j = 1; j < NL; j++) t[j - 1] = t[j] + ai * b->v[j] + m * F(P).v[j];
    t[NL - 1] = 0;
    t[0] += carry;
  }
  u32 o[NL];
  u64 c = 0;
  UNROLL for (int j = 0; j < NL; j++) {
    u64 s = t[j] + c;
    o[j] = (u32)s & MASK;
    c = s >> LB;
  }
  F(reduce_once)(r, o);
}

static inline void F(sqr)(limbs *r, const limbs *a) { F(mul)(r, a, a); }

static inline int F(eq)(const limbs *a, const limbs *b) {
  u32 d = 0;
  UNROLL for (int j = 0; j < NL; j++) d |= a->v[j] ^ b->v[j];
  return d == 0;
}

static inline int F(is_zero)(const limbs *a) {
  u32 d = 0;
  UNROLL for (int j = 0; j < NL; j++) d |= a->v[j];
  return d == 0;
}

/* a^(p-2) by square-and-multiply over the limbs of p - 2. */
static void F(inv)(limbs *r, const limbs *a) {
  limbs e = F(P);
  e.v[0] -= 2; /* p's lowest limb is far above 2 */
  limbs acc = F(one);
  for (int j = NL - 1; j >= 0; j--) {
    for (int b = LB - 1; b >= 0; b--) {
      F(sqr)(&acc, &acc);
      if ((e.v[j] >> b) & 1) F(mul)(&acc, &acc, a);
    }
  }
  *r = acc;
}

/* 32 little-endian bytes (below 2^256) into limbs; no reduction. */
static void F(unpack)(limbs *r, const u8 *b) {
  u32 w[8];
  UNROLL for (int i = 0; i < 8; i++) w[i] = (u32)b[4 * i] | ((u32)b[4 * i + 1] << 8) | ((u32)b[4 * i + 2] << 16) | ((u32)b[4 * i + 3] << 24);
  UNROLL for (int j = 0; j < NL; j++) {
    int bit = j * LB;
    int wi = bit >> 5, sh = bit & 31;
    u64 lo = w[wi] | (wi + 1 < 8 ? (u64)w[wi + 1] << 32 : 0);
    r->v[j] = (u32)(lo >> sh) & MASK;
  }
}

static void F(pack)(u8 *b, const limbs *a) {
  u32 w[8];
  UNROLL for (int i = 0; i < 8; i++) w[i] = 0;
  UNROLL for (int j = 0; j < NL; j++) {
    int bit = j * LB;
    int wi = bit >> 5, sh = bit & 31;
    u64 v = (u64)a->v[j] << sh;
    w[wi] |= (u32)v;
    if (wi + 1 < 8) w[wi + 1] |= (u32)(v >> 32);
  }
  UNROLL for (int i = 0; i < 8; i++) {
    b[4 * i] = (u8)w[i];
    b[4 * i + 1] = (u8)(w[i] >> 8);
    b[4 * i + 2] = (u8)(w[i] >> 16);
    b[4 * i + 3] = (u8)(w[i] >> 24);
  }
}

/* ffjavascript's Montgomery form (x·2^256 mod m, taken as below 2^256) to ours (x·2^261 mod m). */
static void F(from_zkey)(limbs *r, const u8 *b) {
  limbs t;
  F(unpack)(&t, b);
  F(mul)(r, &t, &F(c266));
}

static __attribute__((unused)) void F(to_zkey)(u8 *b, const limbs *a) {
  limbs t;
  F(mul)(&t, a, &F(c256));
  F(pack)(b, &t);
}


/* The constants above, from the modulus alone. */
static void F(init)(void) {
  u32 p0 = F(P).v[0], inv = p0;
  for (int i = 0; i < 5; i++) inv *= 2u - p0 * inv; /* Newton: p0·inv = 1 mod 2^32 */
  F(mu) = (0u - inv) & MASK;
  limbs x = {{1}};
  for (int i = 1; i <= 271; i++) {
    F(dbl)(&x, &x);
    if (i == 256) F(c256) = x;
    if (i == 261) F(one) = x;
    if (i == 266) F(c266) = x;
  }
  F(c271) = x;
}
