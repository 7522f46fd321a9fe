/*
 * Groth16 verification (BN254) of protocol v3 withdraw proofs, on the alt_bn128 syscalls.
 *
 * The pool program calls groth16_verify once per withdrawal and maps every nonzero
 * result to InvalidProof (6000); the distinct reasons exist for tests and logs only.
 */
#ifndef POOL_GROTH16_H
#define POOL_GROTH16_H

#include <solana_sdk.h>

/* Proof wire format (src-shared/zk/proof-codec.ts): A (G1 x, y) 64 | B (G2 x.c1, x.c0, y.c1, y.c0) 128 | C (G1) 64,
 * 32-byte big-endian coordinates, A not negated. */
#define GROTH16_PROOF_BYTES 256
/* root, nullifierHash, recipient, amount, mint, extDataHash, changeCommitment: 32-byte big-endian each. */
#define GROTH16_PUBLIC_INPUTS 7

#define GROTH16_OK 0
/* A public input >= r: the same point as input - r, so accepting it would let one
 * proof be replayed under a second nullifierHash encoding. */
#define GROTH16_ERR_INPUT_NOT_IN_FIELD 1
/* A proof coordinate >= q: the wire format has exactly one encoding per point. */
#define GROTH16_ERR_COORDINATE_NOT_IN_FIELD 2
#define GROTH16_ERR_NO_HEAP 3
/* The syscalls refused their input (cannot happen with a valid key; kept distinct). */
#define GROTH16_ERR_MUL 4
#define GROTH16_ERR_ADD 5
/* The pairing syscall refused a point: A or C not on the curve, B not on the twist
 * or not in the r-torsion subgroup. */
#define GROTH16_ERR_PAIRING_INPUT 6
/* All points valid, but the pairing product is not one: a wrong proof, or one for
 * other public inputs or another verifying key. */
#define GROTH16_ERR_PAIRING_NOT_ONE 7

/*
 * 0 when proof verifies for public_inputs under the committed verifying key
 * (verifying_key.h), else one of GROTH16_ERR_*. Reads the inputs in place (any
 * alignment); allocates 992 bytes from the bump heap on every call.
 */
uint64_t groth16_verify(const uint8_t proof[GROTH16_PROOF_BYTES],
                        const uint8_t public_inputs[GROTH16_PUBLIC_INPUTS][32]);

#endif
