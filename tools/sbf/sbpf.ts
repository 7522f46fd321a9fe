// The one place that chooses the SBPF target: ELF header values, the compiler flags, the
// virtual address of the read-only region, the syscalls the loader knows and the
// instructions this version would mis-execute. Moving to a later SBPF version starts here.

export const SBPF = {
  /** SBPF v0: the loader reads e_flags 0 as v0 (the lenient, relocating ELF loader). */
  version: "v0",
  eFlags: 0,
  /** EM_BPF. */
  eMachine: 247,
  /** Where the loader maps the ELF's read-only bytes (.text and .rodata): MM_RODATA_START. */
  rodataBase: 0x1_0000_0000n,
  /** clang -mcpu: v3 emits opcodes (jmp32, alu32) that SBPF v0 rejects or mis-executes. */
  cpu: "v2",
} as const;

/** Fixed clang flags for every C file (the -I paths are added per program). */
export const CLANG_FLAGS: readonly string[] = [
  "-target",
  "bpf",
  `-mcpu=${SBPF.cpu}`,
  "-O2",
  "-fno-builtin",
  "-ffreestanding",
  "-fno-stack-protector",
  "-Wall",
  "-Werror=implicit-function-declaration",
  "-c",
];

/**
 * Syscalls registered by agave's program runtime v1 (some behind feature gates). A call to an
 * undefined symbol must name one of these, so a typo or a missing function fails at link time
 * rather than at deploy.
 */
export const KNOWN_SYSCALLS: ReadonlySet<string> = new Set([
  "abort",
  "sol_panic_",
  "sol_log_",
  "sol_log_64_",
  "sol_log_pubkey",
  "sol_log_compute_units_",
  "sol_log_data",
  "sol_create_program_address",
  "sol_try_find_program_address",
  "sol_sha256",
  "sol_keccak256",
  "sol_blake3",
  "sol_secp256k1_recover",
  "sol_curve_validate_point",
  "sol_curve_group_op",
  "sol_curve_multiscalar_mul",
  "sol_get_clock_sysvar",
  "sol_get_epoch_schedule_sysvar",
  "sol_get_fees_sysvar",
  "sol_get_rent_sysvar",
  "sol_get_last_restart_slot",
  "sol_get_epoch_rewards_sysvar",
  "sol_get_sysvar",
  "sol_get_epoch_stake",
  "sol_memcpy_",
  "sol_memmove_",
  "sol_memset_",
  "sol_memcmp_",
  "sol_get_processed_sibling_instruction",
  "sol_get_stack_height",
  "sol_set_return_data",
  "sol_get_return_data",
  "sol_invoke_signed_c",
  "sol_invoke_signed_rust",
  "sol_alloc_free_",
  "sol_alt_bn128_group_op",
  "sol_alt_bn128_compression",
  "sol_big_mod_exp",
  "sol_poseidon",
  "sol_remaining_compute_units",
]);

/**
 * clang may emit calls to memcpy/memset/memmove for large struct copies and zeroing even with
 * -fno-builtin; their argument order matches these syscalls (the return value is unused).
 */
export const SYSCALL_ALIASES: ReadonlyMap<string, string> = new Map([
  ["memcpy", "sol_memcpy_"],
  ["memmove", "sol_memmove_"],
  ["memset", "sol_memset_"],
]);

/**
 * BPF_ALU (32-bit) opcodes SBPF v0 executes differently from eBPF: it sign-extends the 32-bit
 * result of add, sub, mul and neg into the 64-bit register (eBPF zero-extends), so code
 * compiled for eBPF semantics would compute wrong values. clang -mcpu=v2 does not emit them;
 * the linker refuses them in case a flag (-mattr=+alu32, -mcpu=v3) slips in.
 */
export const MISEXECUTED_OPCODES: ReadonlyMap<number, string> = new Map([
  [0x04, "add32 imm"],
  [0x0c, "add32 reg"],
  [0x14, "sub32 imm"],
  [0x1c, "sub32 reg"],
  [0x24, "mul32 imm"],
  [0x2c, "mul32 reg"],
  [0x84, "neg32"],
]);

/** Instruction classes the SBPF v0 verifier rejects: BPF_JMP32 (0x06). */
export const REJECTED_CLASSES: ReadonlyMap<number, string> = new Map([[0x06, "jmp32 (compile with -mcpu=v2)"]]);
