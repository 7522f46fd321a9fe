/*
 * One curve's MSM over the field FE (included by msm.c once for G1 over Fq,
 * once for G2 over Fq2; y^2 = x^3 + b, a = 0, b unused by the formulas).
 */

#define STR2(x) #x
#define STR(x) STR2(x)

typedef struct {
  FE x, y;
} CURVE(aff);
typedef struct {
  FE x, y, z; /* Jacobian: (x/z^2, y/z^3); z = 0 is infinity */
} CURVE(jac);

/* An affine point at infinity in the bucket buffer: a first limb no canonical element has. */
#define INF_MARK 0xffffffffu
#define AFF_IS_INF(p) (((const u32 *)&(p)->x)[0] == INF_MARK)
#define AFF_SET_INF(p) (((u32 *)&(p)->x)[0] = INF_MARK)

static inline int CURVE(jac_is_inf)(const CURVE(jac) * p) { return FE_IS_ZERO(&p->z); }

static inline void CURVE(jac_set_inf)(CURVE(jac) * p) {
  p->x = FE_ONE;
  p->y = FE_ONE;
  for (int i = 0; i < (int)(sizeof(FE) / 4); i++) ((u32 *)&p->z)[i] = 0;
}

/* dbl-2009-l */
static void CURVE(jac_dbl)(CURVE(jac) * r, const CURVE(jac) * p) {
  FE A, B, C, D, E, F, t;
  FE_SQR(&A, &p->x);
  FE_SQR(&B, &p->y);
  FE_SQR(&C, &B);
  FE_ADD(&t, &p->x, &B);
  FE_SQR(&t, &t);
  FE_SUB(&t, &t, &A);
  FE_SUB(&t, &t, &C);
  FE_DBL(&D, &t);
  FE_DBL(&E, &A);
  FE_ADD(&E, &E, &A);
  FE_SQR(&F, &E);
  FE z3;
  FE_MUL(&z3, &p->y, &p->z);
  FE_DBL(&r->z, &z3);
  FE_DBL(&t, &D);
  FE_SUB(&r->x, &F, &t);
  FE_SUB(&t, &D, &r->x);
  FE_MUL(&t, &E, &t);
  FE_DBL(&C, &C);
  FE_DBL(&C, &C);
  FE_DBL(&C, &C);
  FE_SUB(&r->y, &t, &C);
}

/* The end both additions share: x3 = r^2 - J - 2V, y3 = r(V - x3) - 2·s1·J. Reads s1 before writing r. */
static inline void CURVE(add_tail)(CURVE(jac) * r, const FE *rr, const FE *J, const FE *V, const FE *s1, const FE *z3) {
  FE s1J, x3, t;
  FE_MUL(&s1J, s1, J);
  FE_DBL(&s1J, &s1J);
  FE_SQR(&x3, rr);
  FE_SUB(&x3, &x3, J);
  FE_DBL(&t, V);
  FE_SUB(&x3, &x3, &t);
  FE_SUB(&t, V, &x3);
  FE_MUL(&t, rr, &t);
  FE_SUB(&r->y, &t, &s1J);
  r->x = x3;
  r->z = *z3;
}

/* madd-2007-bl: r = p + q, q affine and finite. r may be p. */
static void CURVE(jac_madd)(CURVE(jac) * r, const CURVE(jac) * p, const CURVE(aff) * q) {
  if (CURVE(jac_is_inf)(p)) {
    r->x = q->x;
    r->y = q->y;
    r->z = FE_ONE;
    return;
  }
  FE Z1Z1, U2, S2, H, HH, I, J, rr, V;
  FE_SQR(&Z1Z1, &p->z);
  FE_MUL(&U2, &q->x, &Z1Z1);
  FE_MUL(&S2, &q->y, &p->z);
  FE_MUL(&S2, &S2, &Z1Z1);
  FE_SUB(&H, &U2, &p->x);
  FE_SUB(&rr, &S2, &p->y);
  if (FE_IS_ZERO(&H)) {
    if (FE_IS_ZERO(&rr)) CURVE(jac_dbl)(r, p);
    else CURVE(jac_set_inf)(r);
    return;
  }
  FE_DBL(&rr, &rr);
  FE_SQR(&HH, &H);
  FE_DBL(&I, &HH);
  FE_DBL(&I, &I);
  FE_MUL(&J, &H, &I);
  FE_MUL(&V, &p->x, &I);
  FE z3;
  FE_ADD(&z3, &p->z, &H);
  FE_SQR(&z3, &z3);
  FE_SUB(&z3, &z3, &Z1Z1);
  FE_SUB(&z3, &z3, &HH);
  CURVE(add_tail)(r, &rr, &J, &V, &p->y, &z3);
}

/* add-2007-bl: r = p + q. r may be p or q. */
static void CURVE(jac_add)(CURVE(jac) * r, const CURVE(jac) * p, const CURVE(jac) * q) {
  if (CURVE(jac_is_inf)(p)) {
    *r = *q;
    return;
  }
  if (CURVE(jac_is_inf)(q)) {
    *r = *p;
    return;
  }
  FE Z1Z1, Z2Z2, U1, U2, S1, S2, H, I, J, rr, V;
  FE_SQR(&Z1Z1, &p->z);
  FE_SQR(&Z2Z2, &q->z);
  FE_MUL(&U1, &p->x, &Z2Z2);
  FE_MUL(&U2, &q->x, &Z1Z1);
  FE_MUL(&S1, &p->y, &q->z);
  FE_MUL(&S1, &S1, &Z2Z2);
  FE_MUL(&S2, &q->y, &p->z);
  FE_MUL(&S2, &S2, &Z1Z1);
  FE_SUB(&H, &U2, &U1);
  FE_SUB(&rr, &S2, &S1);
  if (FE_IS_ZERO(&H)) {
    if (FE_IS_ZERO(&rr)) CURVE(jac_dbl)(r, p);
    else CURVE(jac_set_inf)(r);
    return;
  }
  FE_DBL(&rr, &rr);
  FE_DBL(&I, &H);
  FE_SQR(&I, &I);
  FE_MUL(&J, &H, &I);
  FE_MUL(&V, &U1, &I);
  FE z3;
  FE_ADD(&z3, &p->z, &q->z);
  FE_SQR(&z3, &z3);
  FE_SUB(&z3, &z3, &Z1Z1);
  FE_SUB(&z3, &z3, &Z2Z2);
  FE_MUL(&z3, &z3, &H);
  CURVE(add_tail)(r, &rr, &J, &V, &S1, &z3);
}

/* ---- point sets: the zkey's points, loaded once ---- */

typedef struct {
  u32 n;    /* finite points kept */
  u32 pts;  /* CURVE(aff)[n] */
  u32 idx;  /* u32[n]: each kept point's position in the input, i.e. its scalar's */
} CURVE(set);

/* Room for a set of up to n points (its handle, 0 when memory ran out); g?_load fills it. */
EXPORT_AS(STR(CURVE(reserve))) u32 CURVE(reserve)(u32 n) {
  u32 h = msm_alloc(sizeof(CURVE(set)));
  u32 pts = msm_alloc(n * sizeof(CURVE(aff)));
  u32 idx = msm_alloc(n * 4);
  if (!h || !pts || !idx) return 0;
  CURVE(set) *s = (CURVE(set) *)h;
  s->n = 0;
  s->pts = pts;
  s->idx = idx;
  return h;
}

/*
 * Fills a reserved set from n zkey points at src (2·32·FE_WORDS bytes each),
 * converted to this module's Montgomery form. Points at infinity (all zeros)
 * are left out: they add nothing to any sum.
 */
EXPORT_AS(STR(CURVE(load))) void CURVE(load)(u32 h, u32 src, u32 n) {
  const u32 csize = 32 * FE_WORDS;
  CURVE(set) *s = (CURVE(set) *)h;
  CURVE(aff) *out = (CURVE(aff) *)s->pts;
  u32 *ix = (u32 *)s->idx;
  u32 kept = 0;
  for (u32 k = 0; k < n; k++) {
    const u8 *b = (const u8 *)(src + k * 2 * csize);
    u8 any = 0;
    for (u32 i = 0; i < 2 * csize; i++) any |= b[i];
    if (!any) continue;
    fq *dst = (fq *)&out[kept];
    for (u32 i = 0; i < 2 * FE_WORDS; i++) fq_from_zkey(&dst[i], b + 32 * i);
    ix[kept++] = k;
  }
  s->n = kept;
}

EXPORT_AS(STR(CURVE(set_size))) u32 CURVE(set_size)(u32 h) { return ((const CURVE(set) *)h)->n; }

/* ---- batch-affine bucket sums ---- */

typedef struct {
  u32 a[CHUNK], b[CHUNK], d[CHUNK];
  u8 kind[CHUNK];
  FE den[CHUNK], pre[CHUNK];
  u32 n;
} CURVE(chunk);

/*
 * buf[d] = buf[a] + buf[b] for each queued pair, with one inversion for the
 * whole chunk. Pairs are queued so that no pair reads a slot an earlier one
 * wrote (d <= a < b, increasing), so the sums are written in place.
 */
static void CURVE(flush)(CURVE(chunk) * ch, CURVE(aff) * buf) {
  u32 n = ch->n;
  if (!n) return;
  FE acc = FE_ONE;
  for (u32 i = 0; i < n; i++) {
    const CURVE(aff) *pa = &buf[ch->a[i]], *pb = &buf[ch->b[i]];
    ch->pre[i] = acc;
    u8 k;
    if (AFF_IS_INF(pa)) k = K_COPY_B;
    else if (AFF_IS_INF(pb)) k = K_COPY_A;
    else if (FE_EQ(&pa->x, &pb->x)) {
      if (FE_EQ(&pa->y, &pb->y)) {
        k = K_DBL;
        FE_DBL(&ch->den[i], &pa->y);
      } else k = K_INF;
    } else {
      k = K_ADD;
      FE_SUB(&ch->den[i], &pb->x, &pa->x);
    }
    ch->kind[i] = k;
    if (k <= K_DBL) FE_MUL(&acc, &acc, &ch->den[i]);
  }
  FE inv;
  FE_INV(&inv, &acc);
  for (u32 i = n; i-- > 0;) {
    if (ch->kind[i] > K_DBL) continue;
    FE t;
    FE_MUL(&t, &inv, &ch->pre[i]);
    FE_MUL(&inv, &inv, &ch->den[i]);
    ch->den[i] = t;
  }
  for (u32 i = 0; i < n; i++) {
    const CURVE(aff) *pa = &buf[ch->a[i]], *pb = &buf[ch->b[i]];
    CURVE(aff) *pd = &buf[ch->d[i]];
    switch (ch->kind[i]) {
      case K_COPY_A: *pd = *pa; break;
      case K_COPY_B: *pd = *pb; break;
      case K_INF: AFF_SET_INF(pd); break;
      default: {
        FE lambda, t, x3;
        if (ch->kind[i] == K_ADD) {
          FE_SUB(&t, &pb->y, &pa->y);
        } else {
          FE_SQR(&t, &pa->x);
          FE x2 = t;
          FE_DBL(&t, &t);
          FE_ADD(&t, &t, &x2);
        }
        FE_MUL(&lambda, &t, &ch->den[i]);
        FE_SQR(&x3, &lambda);
        FE_SUB(&x3, &x3, &pa->x);
        FE_SUB(&x3, &x3, &pb->x);
        FE_SUB(&t, &pa->x, &x3);
        FE_MUL(&t, &lambda, &t);
        FE_SUB(&pd->y, &t, &pa->y);
        pd->x = x3;
      }
    }
  }
  ch->n = 0;
}

/*
 * Sums every bucket's points (buf[start[b] .. start[b] + cnt[b]) in place:
 * each round adds them in pairs, halving every bucket, until each holds one.
 */
static void CURVE(sum_buckets)(CURVE(chunk) * ch, CURVE(aff) * buf, const u32 *start, u32 *cnt, u32 nb) {
  for (;;) {
    int more = 0;
    for (u32 b = 0; b < nb; b++) {
      u32 m = cnt[b];
      if (m < 2) continue;
      more = 1;
      u32 s = start[b];
      for (u32 j = 0; j < m / 2; j++) {
        u32 i = ch->n++;
        ch->a[i] = s + 2 * j;
        ch->b[i] = s + 2 * j + 1;
        ch->d[i] = s + j;
        if (ch->n == CHUNK) CURVE(flush)(ch, buf);
      }
    }
    if (!more) return;
    CURVE(flush)(ch, buf);
    for (u32 b = 0; b < nb; b++) {
      u32 m = cnt[b];
      if (m < 2) continue;
      if (m & 1) buf[start[b] + m / 2] = buf[start[b] + m - 1];
      cnt[b] = (m + 1) / 2;
    }
  }
}

/*
 * out (2·32·FE_WORDS bytes, zkey encoding, zeros for infinity) = Σ scalar[idx[k]]·P[k]
 * over the set's points; scalars: 32-byte little-endian, standard form, any
 * 256-bit value. c: window bits (0 picks by size). Answers 0 when memory ran out.
 * part of parts: only windows [W·part/parts, W·(part+1)/parts) of the W, so that
 * the parts of one sum (added together afterwards) can run on different threads
 * at no extra cost per point, unlike splitting the points, which adds a bucket
 * reduction per window to every piece.
 */
EXPORT_AS(STR(CURVE(msm))) u32 CURVE(msm)(u32 h, u32 scalars, u32 out, u32 c, u32 part, u32 parts) {
  const CURVE(set) *set = (const CURVE(set) *)h;
  const u32 n = set->n;
  const CURVE(aff) *pts = (const CURVE(aff) *)set->pts;
  const u32 *idx = (const u32 *)set->idx;
  const u32 mark = msm_mark();
  if (c == 0) c = window_bits(n);
  if (parts == 0 || part >= parts) return 0;
  const u32 H = 1u << (c - 1), W = (257 + c - 1) / c;
  const u32 j0 = W * part / parts, j1 = W * (part + 1) / parts, NW = j1 - j0;
  short *digits = (short *)msm_alloc(NW * n * 2 + 2);
  u32 *cnt = (u32 *)msm_alloc(H * 4);
  u32 *start = (u32 *)msm_alloc(H * 4);
  u32 *pos = (u32 *)msm_alloc(H * 4);
  CURVE(aff) *buf = (CURVE(aff) *)msm_alloc(n * sizeof(CURVE(aff)) + 16);
  CURVE(chunk) *ch = (CURVE(chunk) *)msm_alloc(sizeof(CURVE(chunk)));
  CURVE(jac) *win = (CURVE(jac) *)msm_alloc((NW + 1) * sizeof(CURVE(jac)));
  if (!digits || !cnt || !start || !pos || !buf || !ch || !win) {
    msm_release(mark);
    return 0;
  }
  ch->n = 0;
  /* Signed digits in (-2^(c-1), 2^(c-1)]; W·c >= 257 leaves no carry out of the top window. */
  for (u32 k = 0; k < n; k++) {
    const u32 *w = (const u32 *)(scalars + 32 * idx[k]);
    u32 carry = 0;
    /* The windows below j0 only for their carry. */
    for (u32 j = 0; j < j1; j++) {
      u32 off = j * c;
      u32 raw = (off < 256 ? scalar_bits(w, (int)off, (int)c) : 0) + carry;
      short d = (short)raw;
      carry = raw > H;
      if (carry) d = (short)((i32)raw - (i32)(1u << c));
      if (j >= j0) digits[(j - j0) * n + k] = d;
    }
  }
  for (u32 j = 0; j < NW; j++) {
    const short *dg = digits + j * n;
    for (u32 b = 0; b < H; b++) cnt[b] = 0;
    for (u32 k = 0; k < n; k++) {
      i32 d = dg[k];
      if (d) cnt[(d < 0 ? -d : d) - 1]++;
    }
    u32 total = 0;
    for (u32 b = 0; b < H; b++) {
      start[b] = pos[b] = total;
      total += cnt[b];
    }
    for (u32 k = 0; k < n; k++) {
      i32 d = dg[k];
      if (!d) continue;
      CURVE(aff) *dst = &buf[pos[(d < 0 ? -d : d) - 1]++];
      dst->x = pts[k].x;
      if (d < 0) FE_NEG(&dst->y, &pts[k].y);
      else dst->y = pts[k].y;
    }
    CURVE(sum_buckets)(ch, buf, start, cnt, H);
    /* Σ (b + 1)·bucket[b] as running sums from the top bucket down. */
    CURVE(jac) run, sum;
    CURVE(jac_set_inf)(&run);
    CURVE(jac_set_inf)(&sum);
    for (u32 b = H; b-- > 0;) {
      if (cnt[b] && !AFF_IS_INF(&buf[start[b]])) CURVE(jac_madd)(&run, &run, &buf[start[b]]);
      CURVE(jac_add)(&sum, &sum, &run);
    }
    win[j] = sum;
  }
  CURVE(jac) acc;
  CURVE(jac_set_inf)(&acc);
  for (u32 j = NW; j-- > 0;) {
    for (u32 i = 0; i < c; i++) CURVE(jac_dbl)(&acc, &acc);
    CURVE(jac_add)(&acc, &acc, &win[j]);
  }
  for (u32 i = 0; i < c * j0; i++) CURVE(jac_dbl)(&acc, &acc);
  u8 *o = (u8 *)out;
  if (CURVE(jac_is_inf)(&acc)) {
    for (u32 i = 0; i < 64 * FE_WORDS; i++) o[i] = 0;
  } else {
    FE zi, zi2, x, y;
    FE_INV(&zi, &acc.z);
    FE_SQR(&zi2, &zi);
    FE_MUL(&x, &acc.x, &zi2);
    FE_MUL(&zi2, &zi2, &zi);
    FE_MUL(&y, &acc.y, &zi2);
    const fq *xs = (const fq *)&x, *ys = (const fq *)&y;
    for (u32 i = 0; i < FE_WORDS; i++) {
      fq_to_zkey(o + 32 * i, &xs[i]);
      fq_to_zkey(o + 32 * (FE_WORDS + i), &ys[i]);
    }
  }
  msm_release(mark);
  return 1;
}

#undef STR
#undef STR2
#undef INF_MARK
#undef AFF_IS_INF
#undef AFF_SET_INF
