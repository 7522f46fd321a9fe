/* A function defined in another object (util.c), to link calls across objects. */
#pragma once
#include <solana_sdk.h>

uint64_t util_mix(uint64_t a, uint64_t b);

/* Scratch for the memcpy-alias check. */
typedef struct { uint8_t bytes[1024]; } Big;
void util_copy_big(Big *dst, const Big *src);
