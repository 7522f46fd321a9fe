/*
 * Program-derived addresses, computed in the program: sha256(seeds ‖ bump ‖ program ‖
 * "ProgramDerivedAddress"), off the ed25519 curve. This is exactly what the runtime's
 * create_program_address does, at a tenth of its price: the sha256 syscall costs ~150 CU for
 * these seeds and the curve check 159 CU, where sol_create_program_address charges 1,500 CU
 * per bump tried (and sol_try_find_program_address 1,500 per attempt). Deposit has to fit
 * three canonical searches (vault, receipt, commitment marker) and a 32-level Poseidon
 * insertion into the deposit's 40k CU budget (docs/pool-program.md).
 *
 * The canonical PDA is the first bump from 255 down whose hash is off the curve (what
 * findProgramAddressSync and Anchor's `seeds` + `bump` constraint use): accepting any other
 * bump would give one nullifier two addresses.
 */
#include "pool.h"

const uint8_t PDA_MARKER[21] = {'P', 'r', 'o', 'g', 'r', 'a', 'm', 'D', 'e', 'r', 'i', 'v', 'e', 'd',
                                       'A', 'd', 'd', 'r', 'e', 's', 's'};

/* The hash's input slices: seeds, bump, program, marker (built once per search). */
typedef struct {
  SolBytes parts[7];
  uint64_t n;
  uint8_t bump[1];
} PdaInput;

static void pda_input(PdaInput *in, const Seeds *seeds, const SolPubkey *program) {
  uint64_t n = seeds->n;
  for (uint64_t i = 0; i < n; i++) {
    in->parts[i].addr = seeds->s[i].addr;
    in->parts[i].len = seeds->s[i].len;
  }
  in->parts[n].addr = in->bump;
  in->parts[n].len = 1;
  in->parts[n + 1].addr = program->x;
  in->parts[n + 1].len = 32;
  in->parts[n + 2].addr = PDA_MARKER;
  in->parts[n + 2].len = sizeof(PDA_MARKER);
  in->n = n + 3;
}

uint64_t pda_find(const Seeds *seeds, const SolPubkey *program, SolPubkey *address, uint8_t *bump) {
  PdaInput in;
  pda_input(&in, seeds, program);
  for (uint64_t candidate = 255;; candidate--) {
    in.bump[0] = (uint8_t)candidate;
    sol_sha256(in.parts, in.n, address->x);
    uint8_t unused;
    if (sol_curve_validate_point(CURVE25519_EDWARDS, address->x, &unused) != 0) {
      *bump = in.bump[0];
      return SUCCESS;
    }
    /* No off-curve bump at all: the runtime's "Unable to find a viable program address bump seed"
     * (probability ~2^-256). */
    if (candidate == 0) return ERROR_INVALID_SEEDS;
  }
}

bool pda_hash_matches(const Seeds *seeds, const SolPubkey *program, const SolPubkey *expected, uint8_t *bump) {
  PdaInput in;
  pda_input(&in, seeds, program);
  SolPubkey derived;
  for (uint64_t candidate = 255;; candidate--) {
    in.bump[0] = (uint8_t)candidate;
    sol_sha256(in.parts, in.n, derived.x);
    if (SolPubkey_same(&derived, expected)) {
      *bump = in.bump[0];
      return true;
    }
    if (candidate == 0) return false;
  }
}

/*
 * The canonical search, with the curve checked only where it decides something: a bump whose
 * hash is not `expected` is checked (off the curve it is the canonical PDA, so `expected` is
 * not; on it, the search goes on), the bump whose hash is `expected` is not. Such an address
 * on the curve is no PDA, but nothing can come of accepting it: nobody knows its key, no
 * program can sign for it, so the runtime refuses every create or transfer this program would
 * sign for it, and no account this program or SPL Token made can sit there. A deposit checks
 * two PDAs this way and saves a curve check (159 CU) on each.
 */
bool pda_is(const Seeds *seeds, const SolPubkey *program, const SolPubkey *expected, uint8_t *bump) {
  PdaInput in;
  pda_input(&in, seeds, program);
  SolPubkey derived;
  for (uint64_t candidate = 255;; candidate--) {
    in.bump[0] = (uint8_t)candidate;
    sol_sha256(in.parts, in.n, derived.x);
    if (SolPubkey_same(&derived, expected)) {
      *bump = in.bump[0];
      return true;
    }
    uint8_t unused;
    if (sol_curve_validate_point(CURVE25519_EDWARDS, derived.x, &unused) != 0) return false;
    if (candidate == 0) return false;
  }
}

bool pda_at(const Seeds *seeds, const SolPubkey *program, const SolPubkey *expected, uint8_t bump) {
  PdaInput in;
  pda_input(&in, seeds, program);
  in.bump[0] = bump;
  SolPubkey derived;
  sol_sha256(in.parts, in.n, derived.x);
  return SolPubkey_same(&derived, expected);
}

bool is_associated_token_account(const SolPubkey *expected, const uint8_t *wallet, const uint8_t *mint) {
  Seeds seeds = {{{wallet, 32}, {TOKEN_PROGRAM_ID.x, 32}, {mint, 32}}, 3};
  uint8_t bump;
  return pda_is(&seeds, &ASSOCIATED_TOKEN_PROGRAM_ID, expected, &bump);
}
