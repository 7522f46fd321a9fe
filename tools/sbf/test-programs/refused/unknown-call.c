/* Refused at link time: calls a function nobody defines (and no syscall has that name). */
#include <solana_sdk.h>

uint64_t not_defined_anywhere(uint64_t x);

uint64_t entrypoint(const uint8_t *input) {
  return not_defined_anywhere(input[0]);
}
