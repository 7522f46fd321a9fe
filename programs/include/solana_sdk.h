/*
 * solana_sdk.h -- this project's own freestanding C SDK for Solana programs.
 *
 * Written for this repo (not a copy of Solana's C SDK); it keeps the familiar API names and
 * signatures of Solana's `sdk/sbf/c/inc/solana_sdk.h` so programs written against that API
 * compile here. Target: SBPF v0 (ELF e_flags 0), built with Debian's clang 14:
 *   clang -target bpf -mcpu=v2 -O2 -fno-builtin -ffreestanding -fno-stack-protector -c
 * and linked by tools/sbf (our TypeScript linker). Constraints of that route:
 *   - globals must be `const` (the linker refuses writable .data/.bss);
 *   - 512 bytes of stack per function: put large buffers on the heap (sol_heap_alloc);
 *   - at most 5 arguments per function; no function pointers; no signed division;
 *   - use 64-bit arithmetic (SBPF v0 sign-extends 32-bit add/sub/mul results).
 * Syscalls are plain `extern` functions: the linker turns each call to an undefined symbol
 * into a call the loader resolves by the symbol's name.
 */
#ifndef SOLANA_SDK_H
#define SOLANA_SDK_H

/* ---- Freestanding basic types ---------------------------------------------------------- */

typedef __INT8_TYPE__ int8_t;                 /* signed 8-bit integer */
typedef __UINT8_TYPE__ uint8_t;               /* unsigned 8-bit integer */
typedef __INT16_TYPE__ int16_t;               /* signed 16-bit integer */
typedef __UINT16_TYPE__ uint16_t;             /* unsigned 16-bit integer */
typedef __INT32_TYPE__ int32_t;               /* signed 32-bit integer */
typedef __UINT32_TYPE__ uint32_t;             /* unsigned 32-bit integer */
typedef __INT64_TYPE__ int64_t;               /* signed 64-bit integer */
typedef __UINT64_TYPE__ uint64_t;             /* unsigned 64-bit integer */
typedef __UINTPTR_TYPE__ uintptr_t;           /* pointer-sized unsigned integer */
typedef __SIZE_TYPE__ size_t;                 /* size type (64-bit) */
#ifndef __cplusplus
#ifndef __bool_true_false_are_defined
typedef _Bool bool;                           /* C boolean */
#define true 1                                /* boolean true */
#define false 0                               /* boolean false */
#define __bool_true_false_are_defined 1
#endif
#endif
#ifndef NULL
#define NULL ((void *)0)                      /* null pointer */
#endif
#define UINT8_MAX 0xffU                       /* largest uint8_t */
#define UINT16_MAX 0xffffU                    /* largest uint16_t */
#define UINT32_MAX 0xffffffffU                /* largest uint32_t */
#define UINT64_MAX 0xffffffffffffffffULL      /* largest uint64_t */

/* Keep a function out of line (so each function's locals get their own 512-byte frame). */
#define SOL_NOINLINE __attribute__((noinline))

/* Number of elements of a fixed-size array. */
#define SOL_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- Return codes -------------------------------------------------------------------- */

#define SUCCESS 0                             /* the instruction succeeded */
#define TO_BUILTIN(error) ((uint64_t)(error) << 32) /* builtin ProgramError code in the high word */
#define ERROR_CUSTOM_ZERO TO_BUILTIN(1)       /* Custom(0) (a plain 0 would mean success) */
#define ERROR_INVALID_ARGUMENT TO_BUILTIN(2)  /* InvalidArgument */
#define ERROR_INVALID_INSTRUCTION_DATA TO_BUILTIN(3) /* InvalidInstructionData */
#define ERROR_INVALID_ACCOUNT_DATA TO_BUILTIN(4) /* InvalidAccountData */
#define ERROR_ACCOUNT_DATA_TOO_SMALL TO_BUILTIN(5) /* AccountDataTooSmall */
#define ERROR_INSUFFICIENT_FUNDS TO_BUILTIN(6) /* InsufficientFunds */
#define ERROR_INCORRECT_PROGRAM_ID TO_BUILTIN(7) /* IncorrectProgramId */
#define ERROR_MISSING_REQUIRED_SIGNATURES TO_BUILTIN(8) /* MissingRequiredSignature */
#define ERROR_ACCOUNT_ALREADY_INITIALIZED TO_BUILTIN(9) /* AccountAlreadyInitialized */
#define ERROR_UNINITIALIZED_ACCOUNT TO_BUILTIN(10) /* UninitializedAccount */
#define ERROR_NOT_ENOUGH_ACCOUNT_KEYS TO_BUILTIN(11) /* NotEnoughAccountKeys */
#define ERROR_ACCOUNT_BORROW_FAILED TO_BUILTIN(12) /* AccountBorrowFailed */
#define ERROR_MAX_SEED_LENGTH_EXCEEDED TO_BUILTIN(13) /* MaxSeedLengthExceeded */
#define ERROR_INVALID_SEEDS TO_BUILTIN(14)    /* InvalidSeeds */
#define ERROR_BORSH_IO_ERROR TO_BUILTIN(15)   /* BorshIoError */
#define ERROR_ACCOUNT_NOT_RENT_EXEMPT TO_BUILTIN(16) /* AccountNotRentExempt */
#define ERROR_UNSUPPORTED_SYSVAR TO_BUILTIN(17) /* UnsupportedSysvar */
#define ERROR_ILLEGAL_OWNER TO_BUILTIN(18)    /* IllegalOwner */
#define ERROR_MAX_ACCOUNTS_DATA_ALLOCATIONS_EXCEEDED TO_BUILTIN(19) /* MaxAccountsDataAllocationsExceeded */
#define ERROR_INVALID_ACCOUNT_DATA_REALLOC TO_BUILTIN(20) /* InvalidRealloc */
#define ERROR_MAX_INSTRUCTION_TRACE_LENGTH_EXCEEDED TO_BUILTIN(21) /* MaxInstructionTraceLengthExceeded */
#define ERROR_BUILTIN_PROGRAMS_MUST_CONSUME_COMPUTE_UNITS TO_BUILTIN(22) /* BuiltinProgramsMustConsumeComputeUnits */
#define ERROR_INVALID_ACCOUNT_OWNER TO_BUILTIN(23) /* InvalidAccountOwner */
#define ERROR_ARITHMETIC_OVERFLOW TO_BUILTIN(24) /* ArithmeticOverflow */
#define ERROR_IMMUTABLE TO_BUILTIN(25)        /* Immutable */
#define ERROR_INCORRECT_AUTHORITY TO_BUILTIN(26) /* IncorrectAuthority */
/* Custom program error n (a u32): the transaction fails with InstructionError(_, Custom(n)). */
#define ERROR_CUSTOM(n) ((uint32_t)(n) == 0 ? ERROR_CUSTOM_ZERO : (uint64_t)(uint32_t)(n))

/* ---- Core types ------------------------------------------------------------------------ */

#define SIZE_PUBKEY 32                        /* bytes in a public key */
#define MAX_PERMITTED_DATA_INCREASE (1024 * 10) /* realloc padding after each account's data */
#define MAX_SEEDS 16                          /* most seeds in a program address */
#define MAX_SEED_LEN 32                       /* most bytes in one seed */
#define BPF_ALIGN_OF_U128 8                   /* alignment of the serialized input */

/* A 32-byte public key (account address or program id). */
typedef struct { uint8_t x[SIZE_PUBKEY]; } SolPubkey;

/* An account passed to the program; pointers point into the input region (writes persist). */
typedef struct {
  SolPubkey *key;       /* account address */
  uint64_t *lamports;   /* balance in lamports (writable when is_writable) */
  uint64_t data_len;    /* bytes of account data */
  uint8_t *data;        /* account data */
  SolPubkey *owner;     /* owning program */
  uint64_t rent_epoch;  /* next rent epoch */
  bool is_signer;       /* the transaction was signed by this account */
  bool is_writable;     /* the account is writable in this instruction */
  bool executable;      /* the account is a program */
} SolAccountInfo;

/* The deserialized program input. */
typedef struct {
  SolAccountInfo *ka;         /* accounts (caller-provided array) */
  uint64_t ka_num;            /* accounts in the instruction */
  const uint8_t *data;        /* instruction data */
  uint64_t data_len;          /* bytes of instruction data */
  const SolPubkey *program_id; /* this program's id */
} SolParameters;

/* A byte slice (for sol_log_data, sol_poseidon, hashes). */
typedef struct { const uint8_t *addr; uint64_t len; } SolBytes;

/* One account of a cross-program instruction. */
typedef struct {
  SolPubkey *pubkey;  /* account address */
  bool is_writable;   /* passed writable */
  bool is_signer;     /* passed as signer */
} SolAccountMeta;

/* A cross-program instruction. */
typedef struct {
  SolPubkey *program_id;     /* program to invoke */
  SolAccountMeta *accounts;  /* its accounts */
  uint64_t account_len;      /* number of accounts */
  uint8_t *data;             /* instruction data */
  uint64_t data_len;         /* bytes of instruction data */
} SolInstruction;

/* One seed of a program-derived address. */
typedef struct { const uint8_t *addr; uint64_t len; } SolSignerSeed;

/* The seeds of one program-derived signer. */
typedef struct { const SolSignerSeed *addr; uint64_t len; } SolSignerSeeds;

/* The Clock sysvar (sol_get_clock_sysvar). */
typedef struct {
  uint64_t slot;                  /* current slot */
  int64_t epoch_start_timestamp;  /* unix time of the epoch's first slot */
  uint64_t epoch;                 /* current epoch */
  uint64_t leader_schedule_epoch; /* epoch of the current leader schedule */
  int64_t unix_timestamp;         /* estimated unix time */
} SolClock;

/* The Rent sysvar (sol_get_rent_sysvar); exemption_threshold is an f64's raw bytes. */
typedef struct {
  uint64_t lamports_per_byte_year; /* rent per byte-year */
  uint8_t exemption_threshold[8];  /* f64 years of rent for exemption (raw little-endian) */
  uint8_t burn_percent;            /* percent of rent burned */
} SolRent;

/* ---- Syscalls (resolved by name by the loader) ----------------------------------------- */

void sol_log_(const char *message, uint64_t len);                       /* log a string */
void sol_log_64_(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e); /* log 5 numbers (hex) */
void sol_log_compute_units_(void);                                      /* log remaining compute units */
void sol_log_pubkey(const SolPubkey *pubkey);                           /* log a pubkey (base58) */
void sol_log_data(const SolBytes *data, uint64_t data_len);             /* "Program data:" base64 fields */
void sol_memcpy_(void *dst, const void *src, uint64_t n);               /* copy n bytes (no overlap) */
void sol_memmove_(void *dst, const void *src, uint64_t n);              /* copy n bytes (overlap ok) */
void sol_memset_(void *dst, uint64_t c, uint64_t n);                    /* fill n bytes with c */
void sol_memcmp_(const void *a, const void *b, uint64_t n, int32_t *result); /* compare n bytes */
uint64_t sol_create_program_address(const SolSignerSeed *seeds, uint64_t seeds_len,
                                    const SolPubkey *program_id, SolPubkey *address); /* PDA from seeds incl. bump; 0 = ok */
uint64_t sol_try_find_program_address(const SolSignerSeed *seeds, uint64_t seeds_len,
                                      const SolPubkey *program_id, SolPubkey *address,
                                      uint8_t *bump_seed); /* find PDA and bump; 0 = ok */
uint64_t sol_invoke_signed_c(const SolInstruction *instruction, const SolAccountInfo *account_infos,
                             uint64_t account_infos_len, const SolSignerSeeds *signers_seeds,
                             uint64_t signers_seeds_len); /* cross-program invocation */
uint64_t sol_poseidon(uint64_t parameters, uint64_t endianness, const SolBytes *vals,
                      uint64_t vals_len, uint8_t *result); /* Poseidon hash into 32 bytes; 0 = ok */
uint64_t sol_alt_bn128_group_op(uint64_t group_op, const uint8_t *input, uint64_t input_size,
                                uint8_t *result); /* BN254 G1 add/sub/mul, pairing check; 0 = ok */
uint64_t sol_sha256(const SolBytes *vals, uint64_t vals_len, uint8_t *result);    /* SHA-256 of concatenated slices */
uint64_t sol_keccak256(const SolBytes *vals, uint64_t vals_len, uint8_t *result); /* Keccak-256 of concatenated slices */
uint64_t sol_get_clock_sysvar(void *ret);                               /* fill a SolClock; 0 = ok */
uint64_t sol_get_rent_sysvar(void *ret);                                /* fill a SolRent; 0 = ok */
void sol_set_return_data(const uint8_t *bytes, uint64_t bytes_len);     /* set return data (<= 1024 bytes) */
uint64_t sol_get_return_data(uint8_t *bytes, uint64_t bytes_len, SolPubkey *program_id); /* read return data; returns its length */
uint64_t sol_get_stack_height(void);                                    /* current invocation depth (1 = top) */
void sol_panic_(const char *file, uint64_t len, uint64_t line, uint64_t column); /* abort with a location */

/* ---- Syscall constants ----------------------------------------------------------------- */

#define POSEIDON_PARAMETERS_BN254_X5 0        /* sol_poseidon: circom-compatible BN254, x^5 S-box */
#define POSEIDON_ENDIANNESS_BIG_ENDIAN 0      /* sol_poseidon: inputs and output big-endian */
#define POSEIDON_ENDIANNESS_LITTLE_ENDIAN 1   /* sol_poseidon: inputs and output little-endian */
#define ALT_BN128_ADD 0                       /* G1 add: 128 bytes in, 64 out */
#define ALT_BN128_SUB 1                       /* G1 sub: 128 bytes in, 64 out */
#define ALT_BN128_MUL 2                       /* G1 scalar mul: 96 bytes in, 64 out */
#define ALT_BN128_PAIRING 3                   /* pairing check: n*192 bytes in, 32 out (1 = holds) */

/* ---- Familiar wrappers ------------------------------------------------------------------ */

/* Length of a NUL-terminated string. */
static inline uint64_t sol_strlen(const char *s) {
  uint64_t n = 0;
  while (s[n] != 0) n++;
  return n;
}

#define sol_log(message) sol_log_((message), sol_strlen(message)) /* log a NUL-terminated string */
#define sol_log_64 sol_log_64_                                     /* log 5 numbers */
#define sol_log_compute_units() sol_log_compute_units_()           /* log remaining compute units */
#define sol_panic() sol_panic_(__FILE__, sizeof(__FILE__), __LINE__, 0) /* abort here */
#define sol_assert(expr) do { if (!(expr)) { sol_panic(); } } while (0) /* abort unless expr */

/* Copy n bytes (regions must not overlap). */
static inline void sol_memcpy(void *dst, const void *src, uint64_t n) { sol_memcpy_(dst, src, n); }
/* Copy n bytes (regions may overlap). */
static inline void sol_memmove(void *dst, const void *src, uint64_t n) { sol_memmove_(dst, src, n); }
/* Fill n bytes with the byte c. */
static inline void sol_memset(void *dst, int c, uint64_t n) { sol_memset_(dst, (uint64_t)(uint8_t)c, n); }
/* Compare n bytes: 0 when equal, <0 / >0 like memcmp. */
static inline int sol_memcmp(const void *a, const void *b, uint64_t n) {
  int32_t result = 0;
  sol_memcmp_(a, b, n, &result);
  return result;
}
/* True when two pubkeys are equal. */
static inline bool SolPubkey_same(const SolPubkey *a, const SolPubkey *b) {
  const uint64_t *x = (const uint64_t *)a->x, *y = (const uint64_t *)b->x;
  return x[0] == y[0] && x[1] == y[1] && x[2] == y[2] && x[3] == y[3];
}
/* Cross-program invocation signed by program-derived addresses. */
static inline uint64_t sol_invoke_signed(const SolInstruction *instruction, const SolAccountInfo *account_infos,
                                         uint64_t account_infos_len, const SolSignerSeeds *signers_seeds,
                                         uint64_t signers_seeds_len) {
  return sol_invoke_signed_c(instruction, account_infos, account_infos_len, signers_seeds, signers_seeds_len);
}
/* Cross-program invocation without PDA signers. */
static inline uint64_t sol_invoke(const SolInstruction *instruction, const SolAccountInfo *account_infos,
                                  uint64_t account_infos_len) {
  return sol_invoke_signed_c(instruction, account_infos, account_infos_len, NULL, 0);
}

/* ---- Heap: bump allocator over the 32 KiB region at 0x300000000 ----------------------- */

#define HEAP_START_ADDRESS 0x300000000ULL     /* start of the program heap */
#ifndef HEAP_LENGTH
#define HEAP_LENGTH (32 * 1024)               /* heap size (bytes); define it larger before including when the */
#endif                                        /* transaction requests a bigger heap (RequestHeapFrame) */

/* Allocate size bytes, 8-aligned, zeroed on first use (fresh heap); NULL when exhausted.
 * The heap's first 8 bytes hold the bump offset (0 on a fresh heap = start after them). */
static inline void *sol_heap_alloc(uint64_t size) {
  uint64_t *used = (uint64_t *)HEAP_START_ADDRESS;
  uint64_t start = *used == 0 ? 8 : *used;
  uint64_t rounded = (size + 7) & ~7ULL;
  if (rounded < size || rounded > HEAP_LENGTH - start) return NULL;
  *used = start + rounded;
  return (void *)(HEAP_START_ADDRESS + start);
}

/* ---- Input deserialization (BPF Loader 2 / upgradeable loader, aligned format) ------- */

/* Parse the loader's input into params; fills at most ka_num entries of params->ka (the
 * rest are skipped but counted in params->ka_num). Duplicate accounts copy the earlier
 * entry. Returns false on a NULL argument. */
static inline bool sol_deserialize(const uint8_t *input, SolParameters *params, uint64_t ka_num) {
  if (input == NULL || params == NULL) return false;
  params->ka_num = *(const uint64_t *)input;
  input += sizeof(uint64_t);
  for (uint64_t i = 0; i < params->ka_num; i++) {
    uint8_t dup_info = input[0];
    input += 1;
    if (dup_info != UINT8_MAX) {
      /* duplicate of account dup_info: 7 bytes of padding follow */
      if (i < ka_num && dup_info < ka_num) params->ka[i] = params->ka[dup_info];
      input += 7;
      continue;
    }
    if (i < ka_num) {
      SolAccountInfo *ka = &params->ka[i];
      ka->is_signer = input[0] != 0;
      ka->is_writable = input[1] != 0;
      ka->executable = input[2] != 0;
      input += 3 + 4; /* flags, original data length (u32 padding) */
      ka->key = (SolPubkey *)input;
      input += SIZE_PUBKEY;
      ka->owner = (SolPubkey *)input;
      input += SIZE_PUBKEY;
      ka->lamports = (uint64_t *)input;
      input += sizeof(uint64_t);
      ka->data_len = *(const uint64_t *)input;
      input += sizeof(uint64_t);
      ka->data = (uint8_t *)input;
      input += ka->data_len + MAX_PERMITTED_DATA_INCREASE;
      input = (const uint8_t *)(((uint64_t)input + BPF_ALIGN_OF_U128 - 1) & ~(uint64_t)(BPF_ALIGN_OF_U128 - 1));
      ka->rent_epoch = *(const uint64_t *)input;
      input += sizeof(uint64_t);
    } else {
      input += 3 + 4 + SIZE_PUBKEY + SIZE_PUBKEY + sizeof(uint64_t);
      uint64_t data_len = *(const uint64_t *)input;
      input += sizeof(uint64_t) + data_len + MAX_PERMITTED_DATA_INCREASE;
      input = (const uint8_t *)(((uint64_t)input + BPF_ALIGN_OF_U128 - 1) & ~(uint64_t)(BPF_ALIGN_OF_U128 - 1));
      input += sizeof(uint64_t);
    }
  }
  params->data_len = *(const uint64_t *)input;
  input += sizeof(uint64_t);
  params->data = input;
  input += params->data_len;
  params->program_id = (const SolPubkey *)input;
  return true;
}

/* The program's entry point: define it as `uint64_t entrypoint(const uint8_t *input)`. */
extern uint64_t entrypoint(const uint8_t *input);

#endif /* SOLANA_SDK_H */
