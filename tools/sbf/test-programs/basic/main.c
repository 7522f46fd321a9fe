/* Test program for the linker and the SDK: instruction data[0] selects one check. */
#include <solana_sdk.h>
#include "util.h"

static const char GREETING[] = "hello from .rodata";
static const char *const WORDS[] = {"zero", "one", "two"};

/* A local function kept out of line so the call is a real relative call. */
__attribute__((noinline)) static uint64_t triple_plus(uint64_t x, uint64_t y) {
  return x * 3 + y;
}

SOL_NOINLINE static uint64_t op_log(const SolParameters *p) {
  sol_log(GREETING);
  sol_log(WORDS[p->data_len > 1 ? p->data[1] % 3 : 0]);
  sol_log(UTIL_NAME);
  uint64_t local = triple_plus(p->data_len, 7);
  uint64_t other = util_mix(local, 1);
  sol_log_64(local, other, p->ka_num, p->data_len, 0);
  return SUCCESS;
}

SOL_NOINLINE static uint64_t op_poseidon(const SolParameters *p) {
  (void)p;
  uint8_t one[32], two[32], out[32];
  sol_memset(one, 0, 32);
  sol_memset(two, 0, 32);
  one[31] = 1;
  two[31] = 2;
  const SolBytes vals[2] = {{one, 32}, {two, 32}};
  uint64_t rc = sol_poseidon(POSEIDON_PARAMETERS_BN254_X5, POSEIDON_ENDIANNESS_BIG_ENDIAN, vals, 2, out);
  if (rc != 0) return ERROR_CUSTOM(100);
  sol_set_return_data(out, 32);
  return SUCCESS;
}

/* accounts: [payer (signer, writable), vault PDA (writable), system program];
 * data: [2, lamports u64 LE, space u64 LE]. Creates the PDA ["vault", payer] owned by us. */
SOL_NOINLINE static uint64_t op_create_pda(const SolParameters *p) {
  if (p->ka_num < 3) return ERROR_NOT_ENOUGH_ACCOUNT_KEYS;
  if (p->data_len < 17) return ERROR_INVALID_INSTRUCTION_DATA;
  SolAccountInfo *payer = &p->ka[0], *vault = &p->ka[1], *system = &p->ka[2];
  uint64_t lamports = *(const uint64_t *)(p->data + 1);
  uint64_t space = *(const uint64_t *)(p->data + 9);

  uint8_t bump = 0;
  SolPubkey expected;
  const SolSignerSeed find[2] = {{(const uint8_t *)"vault", 5}, {payer->key->x, 32}};
  if (sol_try_find_program_address(find, 2, p->program_id, &expected, &bump) != 0) return ERROR_CUSTOM(200);
  if (!SolPubkey_same(&expected, vault->key)) return ERROR_INVALID_SEEDS;

  /* SystemInstruction::CreateAccount { lamports, space, owner } */
  uint8_t data[4 + 8 + 8 + 32];
  sol_memset(data, 0, sizeof(data));
  sol_memcpy(data + 4, &lamports, 8);
  sol_memcpy(data + 12, &space, 8);
  sol_memcpy(data + 20, p->program_id, 32);
  SolAccountMeta metas[2] = {{payer->key, true, true}, {vault->key, true, true}};
  const SolInstruction ix = {system->key, metas, 2, data, sizeof(data)};
  const SolSignerSeed seeds[3] = {{(const uint8_t *)"vault", 5}, {payer->key->x, 32}, {&bump, 1}};
  const SolSignerSeeds signers[1] = {{seeds, 3}};
  uint64_t rc = sol_invoke_signed(&ix, p->ka, p->ka_num, signers, 1);
  if (rc != SUCCESS) return rc;
  SolPubkey check;
  if (sol_create_program_address(seeds, 3, p->program_id, &check) != 0) return ERROR_CUSTOM(201);
  if (!SolPubkey_same(&check, vault->key)) return ERROR_CUSTOM(202);
  sol_log("vault created");
  return SUCCESS;
}

/* accounts: [a, a (duplicate), b, ...]; data: [3, b's key (32)]. */
SOL_NOINLINE static uint64_t op_duplicates(const SolParameters *p) {
  if (p->ka_num < 3) return ERROR_NOT_ENOUGH_ACCOUNT_KEYS;
  if (p->data_len < 33) return ERROR_INVALID_INSTRUCTION_DATA;
  if (p->ka[1].key != p->ka[0].key) return ERROR_CUSTOM(301); /* duplicate shares the entry */
  if (p->ka[1].lamports != p->ka[0].lamports) return ERROR_CUSTOM(302);
  if (sol_memcmp(p->ka[2].key, p->data + 1, 32) != 0) return ERROR_CUSTOM(303); /* parsed past the marker */
  if (!p->ka[0].is_signer || !p->ka[0].is_writable || p->ka[2].is_signer) return ERROR_CUSTOM(304);
  sol_log_64(p->ka_num, *p->ka[0].lamports, *p->ka[2].lamports, p->ka[2].data_len, 3);
  return SUCCESS;
}

/* Heap: three 10000-byte blocks fit in 32 KiB, a fourth does not. */
SOL_NOINLINE static uint64_t op_heap(const SolParameters *p) {
  (void)p;
  uint8_t *blocks[3];
  for (uint64_t i = 0; i < 3; i++) {
    blocks[i] = sol_heap_alloc(10000);
    if (blocks[i] == NULL) return ERROR_CUSTOM(400 + i);
    if (((uint64_t)blocks[i] & 7) != 0) return ERROR_CUSTOM(410);
    sol_memset(blocks[i], (int)(i + 1), 10000);
  }
  if (blocks[1] < blocks[0] + 10000 || blocks[2] < blocks[1] + 10000) return ERROR_CUSTOM(411);
  if (blocks[0][9999] != 1 || blocks[1][0] != 2 || blocks[2][5000] != 3) return ERROR_CUSTOM(412);
  if (sol_heap_alloc(10000) != NULL) return ERROR_CUSTOM(413);
  uint8_t *small = sol_heap_alloc(5);
  if (small == NULL || ((uint64_t)small & 7) != 0) return ERROR_CUSTOM(414);
  sol_log_64((uint64_t)blocks[0], (uint64_t)blocks[1], (uint64_t)blocks[2], (uint64_t)small, 4);
  return SUCCESS;
}

/* data: [5, n (u32 LE)] -> Custom(n). */
SOL_NOINLINE static uint64_t op_custom(const SolParameters *p) {
  if (p->data_len < 5) return ERROR_INVALID_INSTRUCTION_DATA;
  return ERROR_CUSTOM(*(const uint32_t *)(p->data + 1));
}

/* Syscalls by name: memcpy (direct and compiler-emitted), log_data, log_pubkey, clock, CU log. */
SOL_NOINLINE static uint64_t op_syscalls(const SolParameters *p) {
  Big *a = sol_heap_alloc(sizeof(Big)), *b = sol_heap_alloc(sizeof(Big));
  if (a == NULL || b == NULL) return ERROR_CUSTOM(600);
  for (uint64_t i = 0; i < sizeof(Big); i++) a->bytes[i] = (uint8_t)(i * 7);
  util_copy_big(b, a);
  if (sol_memcmp(a, b, sizeof(Big)) != 0) return ERROR_CUSTOM(601);
  SolClock clock;
  if (sol_get_clock_sysvar(&clock) != 0) return ERROR_CUSTOM(602);
  const SolBytes fields[2] = {{(const uint8_t *)"abc", 3}, {b->bytes + 1, 2}};
  sol_log_data(fields, 2);
  sol_log_pubkey(p->program_id);
  sol_log_compute_units();
  sol_log_64(clock.slot, b->bytes[1], b->bytes[2], b->bytes[1023], sol_get_stack_height());
  return SUCCESS;
}

/* BN254 G1: generator + generator via sol_alt_bn128_group_op (return data = 2G), and the Rent sysvar. */
SOL_NOINLINE static uint64_t op_bn128_rent(const SolParameters *p) {
  (void)p;
  uint8_t in[128], out[64];
  sol_memset(in, 0, sizeof(in));
  in[31] = 1; /* G = (1, 2), big-endian coordinates */
  in[63] = 2;
  sol_memcpy(in + 64, in, 64);
  if (sol_alt_bn128_group_op(ALT_BN128_ADD, in, sizeof(in), out) != 0) return ERROR_CUSTOM(800);
  SolRent rent;
  if (sol_get_rent_sysvar(&rent) != 0) return ERROR_CUSTOM(801);
  sol_log_64(rent.lamports_per_byte_year, rent.burn_percent, 0, 0, 8);
  sol_set_return_data(out, 64);
  return SUCCESS;
}

uint64_t entrypoint(const uint8_t *input) {
  SolAccountInfo ka[4];
  SolParameters params = {.ka = ka};
  if (!sol_deserialize(input, &params, SOL_ARRAY_SIZE(ka))) return ERROR_INVALID_ARGUMENT;
  if (params.data_len == 0) return ERROR_INVALID_INSTRUCTION_DATA;
  switch (params.data[0]) {
    case 0: return op_log(&params);
    case 1: return op_poseidon(&params);
    case 2: return op_create_pda(&params);
    case 3: return op_duplicates(&params);
    case 4: return op_heap(&params);
    case 5: return op_custom(&params);
    case 6: return ERROR_INVALID_ARGUMENT;
    case 7: return op_syscalls(&params);
    case 8: return op_bn128_rent(&params);
    default: return ERROR_INVALID_INSTRUCTION_DATA;
  }
}
