/*
 * Test program for the pool's Groth16 verifier.
 *
 *   480 bytes of instruction data (256-byte proof || 7 x 32-byte public inputs):
 *     groth16_verify; SUCCESS, or custom error 1 + reason (reason 0 would read as
 *     success), with the units the verification used logged around the call.
 *   224 bytes (7 x 32-byte public inputs, no range check):
 *     vk_x alone, as return data (64 bytes), so a test can compare the linear
 *     combination (its zero-input shortcut included) with an independent curve
 *     library; no real proof has a zero input to exercise it.
 *
 * groth16.c is compiled into this program (a unity build): the build compiles only
 * the C files of a program's own src directory, and the verifier tested must be the
 * pool's own source, never a copy. The unity build also reaches compute_vk_x.
 */
#include <solana_sdk.h>

#include "../../pool/src/groth16.c"

#define VERIFY_BYTES (GROTH16_PROOF_BYTES + GROTH16_PUBLIC_INPUTS * 32)
#define VK_X_BYTES (GROTH16_PUBLIC_INPUTS * 32)

static uint64_t run_verify(const uint8_t *data) {
  const uint8_t *proof = data;
  const uint8_t(*inputs)[32] = (const uint8_t(*)[32])(data + GROTH16_PROOF_BYTES);

  /* Two readings around the call: the test takes their difference as the verifier's
   * own cost, apart from the transaction's overhead. */
  sol_log_compute_units();
  uint64_t reason = groth16_verify(proof, inputs);
  sol_log_compute_units();

  if (reason != GROTH16_OK) {
    sol_log("groth16_verify refused; reason:");
    sol_log_64(reason, 0, 0, 0, 0);
    return 1 + reason;
  }
  return SUCCESS;
}

static uint64_t run_vk_x(const uint8_t *data) {
  Scratch *s = (Scratch *)sol_heap_alloc(sizeof(Scratch));
  if (s == NULL) {
    return 1 + GROTH16_ERR_NO_HEAP;
  }
  uint64_t reason = compute_vk_x(s, (const uint8_t(*)[32])data);
  if (reason != GROTH16_OK) {
    return 1 + reason;
  }
  sol_set_return_data(s->pairing + OFF_VK_X, 64);
  return SUCCESS;
}

uint64_t entrypoint(const uint8_t *input) {
  SolAccountInfo accounts[1];
  SolParameters params = (SolParameters){.ka = accounts};
  if (!sol_deserialize(input, &params, 1)) {
    return ERROR_INVALID_ARGUMENT;
  }
  if (params.data_len == VERIFY_BYTES) {
    return run_verify(params.data);
  }
  if (params.data_len == VK_X_BYTES) {
    return run_vk_x(params.data);
  }
  sol_log("harness: expected 480 (verify) or 224 (vk_x) bytes of instruction data");
  return ERROR_INVALID_INSTRUCTION_DATA;
}
