/* A function defined in another object (util.c), to link calls across objects. */
#pragma once
#include <solana_sdk.h>

uint64_t util_mix(uint64_t a, uint64_t b);

/* A const global defined in util.c and read from main.c (R_BPF_64_64 against a global symbol). */
extern const char UTIL_NAME[];

/* Scratch for the memcpy-alias check. */
typedef struct { uint8_t bytes[1024]; } Big;
void util_copy_big(Big *dst, const Big *src);
