/* Refused at link time: a writable initialized global lands in .data. */
#include <solana_sdk.h>

uint64_t counter = 5;

uint64_t entrypoint(const uint8_t *input) {
  (void)input;
  counter += 1;
  return counter == 6 ? SUCCESS : ERROR_CUSTOM(1);
}
