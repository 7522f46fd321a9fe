/**
 * Anchor discriminators, hard-coded because src-shared cannot hash with
 * node:crypto; discriminators.test.ts recomputes every one of them.
 *   instruction: sha256("global:<snake_name>")[0..8]
 *   account:     sha256("account:<PascalName>")[0..8]
 *   event:       sha256("event:<PascalName>")[0..8]
 */

const d = (...bytes: number[]): Readonly<Uint8Array> => Uint8Array.from(bytes);

export const INSTRUCTION_DISCRIMINATORS = {
  initialize_pool: d(95, 180, 10, 172, 84, 174, 232, 40),
  deposit: d(242, 35, 198, 137, 82, 225, 242, 182),
  withdraw: d(183, 18, 70, 156, 148, 109, 161, 34),
  withdraw_swap: d(239, 213, 30, 56, 221, 209, 57, 224),
  assert_swap_out: d(171, 152, 175, 32, 169, 57, 88, 254),
  revert: d(34, 63, 104, 86, 5, 121, 130, 66),
  extend_pool: d(134, 97, 251, 223, 48, 243, 2, 130),
} as const;

export const ACCOUNT_DISCRIMINATORS = {
  TreeAccount: d(214, 38, 107, 35, 76, 133, 73, 49),
  NullifierAccount: d(250, 31, 238, 177, 213, 98, 48, 172),
  DepositReceipt: d(64, 175, 24, 183, 138, 109, 70, 78),
} as const;

export const EVENT_DISCRIMINATORS = {
  DepositEvent: d(120, 248, 61, 83, 31, 142, 107, 144),
  DepositFailedEvent: d(174, 252, 6, 61, 219, 2, 162, 79),
  WithdrawEvent: d(22, 9, 133, 26, 160, 44, 71, 192),
  RevertEvent: d(1, 97, 0, 63, 79, 159, 127, 213),
} as const;

export type PoolInstructionName = keyof typeof INSTRUCTION_DISCRIMINATORS;
export type PoolAccountName = keyof typeof ACCOUNT_DISCRIMINATORS;
export type PoolEventName = keyof typeof EVENT_DISCRIMINATORS;

export const POOL_INSTRUCTION_NAMES = Object.keys(INSTRUCTION_DISCRIMINATORS) as PoolInstructionName[];
export const POOL_EVENT_NAMES = Object.keys(EVENT_DISCRIMINATORS) as PoolEventName[];
