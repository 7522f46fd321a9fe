/** An account as the ledger and RPC see it (addresses are base58 throughout). */
export interface AccountState {
  lamports: bigint;
  /** Owner program id. */
  owner: string;
  data: Uint8Array;
  executable: boolean;
}
