/**
 * A network's deployed pool program as the program guard (services/program-guard.ts)
 * reads it: the chain adapter implements this over RPC; unit tests script it.
 */

/** The program the cluster runs now. */
export interface DeployedProgram {
  /** The upgradeable loader's ProgramData account; null for a program of the non-upgradeable loader. */
  programDataAddress: string | null;
  /** ProgramData's last-deployed slot; null without ProgramData. */
  slot: number | null;
  /** Base58, or null when none can upgrade it. */
  upgradeAuthority: string | null;
  /** programElfHash of the ELF (src-shared/ceremony/program-hash.ts). */
  elfHash: string;
}

/** ProgramData's header: what an upgrade or an authority change rewrites. */
export interface ProgramDataStamp {
  exists: boolean;
  slot: number | null;
  upgradeAuthority: string | null;
}

/** The account at the program id is not a loader's program (closed, another owner, a bad header): a verdict, not an outage. */
export class NotAProgramError extends Error {
  override readonly name = "NotAProgramError";
}

export interface DeployedProgramSource {
  /** Throws NotAProgramError when the account is not a loader's program; anything else thrown is the RPC failing. */
  read(): Promise<DeployedProgram>;
  /** Throws when the RPC does not answer. */
  stamp(programDataAddress: string): Promise<ProgramDataStamp>;
}
