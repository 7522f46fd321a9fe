/* cpi-proxy: a test program for the local validator. It invokes another program with the
 * accounts and data it was given, so a test can make any instruction an inner (CPI) one, as
 * a program built on the pool would.
 *
 * Accounts: [0] the program to invoke, then that instruction's accounts, passed on with the
 * signer and writable flags they have here. Data: u16 LE n, then the inner instruction's
 * data. Before invoking, it logs n lines of 100 bytes: enough of them push the invoked
 * program's own log lines (its events) past the runtime's log limit, as a busy caller can. */
#include <solana_sdk.h>

#define MAX_ACCOUNTS 40

static const char PADDING[] =
    "cpi-proxy: a caller's own log line, as long as a busy program writes before it invokes another..";

uint64_t entrypoint(const uint8_t *input) {
  SolAccountInfo *ka = (SolAccountInfo *)sol_heap_alloc(sizeof(SolAccountInfo) * MAX_ACCOUNTS);
  if (ka == NULL) return ERROR_INVALID_ARGUMENT;
  SolParameters p = {.ka = ka};
  if (!sol_deserialize(input, &p, MAX_ACCOUNTS)) return ERROR_INVALID_ARGUMENT;
  if (p.ka_num < 1 || p.ka_num > MAX_ACCOUNTS || p.data_len < 2) return ERROR_INVALID_INSTRUCTION_DATA;
  uint64_t lines = (uint64_t)p.data[0] | ((uint64_t)p.data[1] << 8);
  for (uint64_t i = 0; i < lines; i++) sol_log_(PADDING, sizeof(PADDING) - 1);
  uint64_t n = p.ka_num - 1;
  SolAccountMeta *metas = (SolAccountMeta *)sol_heap_alloc(sizeof(SolAccountMeta) * (n == 0 ? 1 : n));
  if (metas == NULL) return ERROR_INVALID_ARGUMENT;
  for (uint64_t i = 0; i < n; i++) {
    metas[i].pubkey = ka[i + 1].key;
    metas[i].is_writable = ka[i + 1].is_writable;
    metas[i].is_signer = ka[i + 1].is_signer;
  }
  const SolInstruction ix = {ka[0].key, metas, n, (uint8_t *)p.data + 2, p.data_len - 2};
  return sol_invoke(&ix, ka + 1, n);
}
