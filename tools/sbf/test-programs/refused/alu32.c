/* Refused at link time when compiled with alu32 enabled (-Xclang -target-feature -Xclang +alu32):
 * 32-bit mul/add, which SBPF v0 sign-extends where eBPF zero-extends. */
#include <solana_sdk.h>

uint64_t entrypoint(const uint8_t *input) {
  uint32_t a = *(const uint32_t *)input, b = *(const uint32_t *)(input + 4);
  uint32_t c = a * b + 7;
  return (uint64_t)c << 3;
}
