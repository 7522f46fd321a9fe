/* Second object of the basic test program: a cross-object call and a call to memcpy. */
#include "util.h"

/* Declared, never defined: the linker maps calls to memcpy onto the sol_memcpy_ syscall. */
void *memcpy(void *dst, const void *src, size_t n);

const char UTIL_NAME[] = "util.c says hi";

static const uint64_t MIX[4] = {3, 5, 7, 0x100000000ULL};

uint64_t util_mix(uint64_t a, uint64_t b) {
  return a * MIX[a & 3] + b;
}

void util_copy_big(Big *dst, const Big *src) {
  memcpy(dst, src, sizeof(Big));
}
