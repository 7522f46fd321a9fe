/*
 * The Groth16 prover's H scalars (included by msm.c): what snarkjs computes
 * with ffjavascript's qap_buildABC, ifft, batchApplyKey, fft and qap_joinABC,
 * in Fr with the same roots of unity, so the answer is the same bytes.
 * A and B on the domain from the zkey's coefficients and the witness, C = A·B;
 * each to coefficients and evaluated on the coset g·ω^i (g a 2n-th root of
 * unity); h_i = a_i·b_i - c_i there, in standard form. The zkey's H points
 * already carry the division by the vanishing polynomial.
 */

typedef struct {
  u32 m, row, signal;
  fr coef; /* x·2^522: its Montgomery product with a standard-form witness value is x·w in Montgomery form */
} qap_coef;

typedef struct {
  u32 n, log_n, ncoef;
  u32 coefs; /* qap_coef[ncoef] */
  u32 tw;    /* fr[n/2]: ω^k */
  u32 itw;   /* fr[n/2]: ω^-k */
  fr g, ninv;
} qap;

/* Room for a QAP of ncoef coefficients on a domain of n = 2^log_n points (its handle, 0 when memory ran out). */
EXPORT(qap_reserve) u32 qap_reserve(u32 ncoef, u32 log_n) {
  u32 n = 1u << log_n;
  u32 h = msm_alloc(sizeof(qap));
  u32 coefs = msm_alloc(ncoef * sizeof(qap_coef));
  u32 tw = msm_alloc((n / 2 + 1) * sizeof(fr));
  u32 itw = msm_alloc((n / 2 + 1) * sizeof(fr));
  if (!h || !coefs || !tw || !itw) return 0;
  qap *q = (qap *)h;
  q->n = n;
  q->log_n = log_n;
  q->ncoef = ncoef;
  q->coefs = coefs;
  q->tw = tw;
  q->itw = itw;
  return h;
}

/*
 * Fills a reserved QAP from the zkey's coefficient section without its count
 * (ncoef × (m, row, signal: u32; coefficient: 32 bytes)) at src, followed by
 * ω (a primitive n-th root of unity) then g, in ffjavascript's Montgomery
 * form. Answers 0 when a row is outside the domain or ω is not primitive.
 */
EXPORT(qap_load) u32 qap_load(u32 h, u32 src) {
  qap *q = (qap *)h;
  const u32 consts = src + 44 * q->ncoef;
  qap_coef *c = (qap_coef *)q->coefs;
  for (u32 k = 0; k < q->ncoef; k++) {
    const u8 *b = (const u8 *)(src + 44 * k);
    const u32 *w = (const u32 *)b;
    c[k].m = w[0];
    c[k].row = w[1];
    c[k].signal = w[2];
    if (c[k].row >= q->n || c[k].m > 1) return 0;
    fr t;
    fr_unpack(&t, b + 12);
    fr_mul(&c[k].coef, &t, &fr_c271);
  }
  fr omega, iomega;
  fr_from_zkey(&omega, (const u8 *)consts);
  fr_from_zkey(&q->g, (const u8 *)consts + 32);
  fr_inv(&iomega, &omega);
  fr *tw = (fr *)q->tw, *itw = (fr *)q->itw;
  tw[0] = itw[0] = fr_one;
  for (u32 k = 1; k <= q->n / 2; k++) {
    fr_mul(&tw[k], &tw[k - 1], &omega);
    fr_mul(&itw[k], &itw[k - 1], &iomega);
  }
  /* ω^(n/2) must be -1 for a primitive n-th root. */
  fr minus1;
  fr_neg(&minus1, &fr_one);
  if (!fr_eq(&tw[q->n / 2], &minus1)) return 0;
  fr nm = fr_one;
  for (u32 i = 0; i < q->log_n; i++) fr_dbl(&nm, &nm);
  fr_inv(&q->ninv, &nm);
  return 1;
}

/* x_i ← Σ_j x_j·w^(ij), natural order in and out (bit reversal, then radix-2 butterflies). */
static void qap_ntt(fr *x, u32 n, const fr *w) {
  for (u32 i = 1, j = 0; i < n; i++) {
    u32 bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      fr t = x[i];
      x[i] = x[j];
      x[j] = t;
    }
  }
  for (u32 len = 2; len <= n; len <<= 1) {
    u32 half = len >> 1, step = n / len;
    for (u32 s = 0; s < n; s += len) {
      for (u32 k = 0; k < half; k++) {
        fr t, u = x[s + k];
        fr_mul(&t, &x[s + k + half], &w[k * step]);
        fr_add(&x[s + k], &u, &t);
        fr_sub(&x[s + k + half], &u, &t);
      }
    }
  }
}

/* Values on the domain to values on the coset: inverse transform, scale coefficient j by g^j/n, transform. */
static void qap_to_coset(const qap *q, fr *x) {
  qap_ntt(x, q->n, (const fr *)q->itw);
  fr s = q->ninv;
  for (u32 i = 0; i < q->n; i++) {
    fr_mul(&x[i], &x[i], &s);
    fr_mul(&s, &s, &q->g);
  }
  qap_ntt(x, q->n, (const fr *)q->tw);
}

/*
 * out (n × 32 bytes, standard form) = the H scalars for nvars witness values
 * (32-byte little-endian, standard form) at witness. Answers 0 when a
 * coefficient names a signal past nvars or memory ran out.
 */
EXPORT(qap_h) u32 qap_h(u32 h, u32 witness, u32 nvars, u32 out) {
  const qap *q = (const qap *)h;
  const u32 n = q->n, mark = msm_mark();
  fr *w = (fr *)msm_alloc(nvars * sizeof(fr));
  fr *abc = (fr *)msm_alloc(3 * n * sizeof(fr));
  if (!w || !abc) {
    msm_release(mark);
    return 0;
  }
  fr *a = abc, *b = abc + n, *c = abc + 2 * n;
  for (u32 i = 0; i < nvars; i++) fr_unpack(&w[i], (const u8 *)(witness + 32 * i));
  for (u32 i = 0; i < 2 * n; i++) abc[i] = (fr){{0}};
  const qap_coef *cf = (const qap_coef *)q->coefs;
  for (u32 k = 0; k < q->ncoef; k++) {
    if (cf[k].signal >= nvars) {
      msm_release(mark);
      return 0;
    }
    fr t;
    fr_mul(&t, &cf[k].coef, &w[cf[k].signal]);
    fr *dst = (cf[k].m == 0 ? a : b) + cf[k].row;
    fr_add(dst, dst, &t);
  }
  for (u32 i = 0; i < n; i++) fr_mul(&c[i], &a[i], &b[i]);
  qap_to_coset(q, a);
  qap_to_coset(q, b);
  qap_to_coset(q, c);
  const fr one_std = {{1}};
  for (u32 i = 0; i < n; i++) {
    fr t;
    fr_mul(&t, &a[i], &b[i]);
    fr_sub(&t, &t, &c[i]);
    fr_mul(&t, &t, &one_std); /* out of Montgomery form */
    fr_pack((u8 *)(out + 32 * i), &t);
  }
  msm_release(mark);
  return 1;
}
