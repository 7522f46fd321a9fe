/**
 * The deployed pool program as the relay checks it (docs/security.md
 * "The deployed program"): the program account names its ProgramData account,
 * whose bytes after the 45-byte header are the ELF the cluster runs. Hashed whole
 * (programElfHash: sha256, trailing zero padding trimmed), never searched for key
 * bytes, so a binary carrying the right key as dead data still differs.
 */
import { PublicKey, type Commitment } from "@solana/web3.js";
import { encodeBase58 } from "../../../src-shared/encoding/base58";
import { programElfHash } from "../../../src-shared/ceremony/program-hash";
import { BPF_LOADER_UPGRADEABLE_ID, PROGRAM_DATA_HEADER_SIZE, decodeProgramDataHeader } from "../../../src-shared/pool-program";
import { NotAProgramError, type DeployedProgram, type DeployedProgramSource, type ProgramDataStamp } from "../../ports/deployed-program";
import type { SolanaRpc } from "./rpc";

/** The loader before upgrades: the program account holds the ELF itself and nobody can change it. */
export const BPF_LOADER_2_ID = "BPFLoader2111111111111111111111111111111111";

/** The upgradeable loader's program account: u32 state 2 (Program), then the ProgramData address. */
const PROGRAM_STATE = 2;
const PROGRAM_ACCOUNT_SIZE = 36;

/** Reads the program at `programId` and hashes its ELF; throws NotAProgramError when it is not a loader's program. */
export async function readDeployedProgram(rpc: SolanaRpc, programId: string, commitment: Commitment): Promise<DeployedProgram> {
  const program = await rpc.getAccountInfo(new PublicKey(programId), commitment);
  if (!program) throw new NotAProgramError(`program ${programId} does not exist`);
  const owner = program.owner.toBase58();
  if (owner === BPF_LOADER_2_ID) {
    // Deployed by the non-upgradeable loader: the account is the ELF and stays as it is.
    return { programDataAddress: null, slot: null, upgradeAuthority: null, elfHash: programElfHash(new Uint8Array(program.data)) };
  }
  if (owner !== BPF_LOADER_UPGRADEABLE_ID) throw new NotAProgramError(`program ${programId} is owned by ${owner}, not a BPF loader`);
  const data = new Uint8Array(program.data);
  if (data.length < PROGRAM_ACCOUNT_SIZE || new DataView(data.buffer, data.byteOffset).getUint32(0, true) !== PROGRAM_STATE)
    throw new NotAProgramError(`program ${programId}: its account is not an upgradeable program (state 2 with a ProgramData address)`);
  const programDataAddress = encodeBase58(data.subarray(4, PROGRAM_ACCOUNT_SIZE));
  const pd = await rpc.getAccountInfo(new PublicKey(programDataAddress), commitment);
  if (!pd || pd.owner.toBase58() !== BPF_LOADER_UPGRADEABLE_ID)
    throw new NotAProgramError(`program ${programId}: ProgramData ${programDataAddress} is missing`);
  const bytes = new Uint8Array(pd.data);
  const header = decodeProgramDataHeader(bytes);
  if (!header.ok) throw new NotAProgramError(`program ${programId}: ${header.error}`);
  return {
    programDataAddress,
    slot: Number(header.value.slot),
    upgradeAuthority: header.value.upgradeAuthority ? encodeBase58(header.value.upgradeAuthority) : null,
    elfHash: programElfHash(bytes.subarray(PROGRAM_DATA_HEADER_SIZE)),
  };
}

/**
 * The ProgramData header alone (45 bytes by dataSlice): an upgrade (or a
 * change of authority) rewrites it, so the watch polls this and hashes the
 * whole program again only when it changed.
 */
export async function readProgramDataStamp(rpc: SolanaRpc, programDataAddress: string, commitment: Commitment): Promise<ProgramDataStamp> {
  const pd = await rpc.getAccountInfo(new PublicKey(programDataAddress), { commitment, dataSlice: { offset: 0, length: PROGRAM_DATA_HEADER_SIZE } });
  if (!pd) return { exists: false, slot: null, upgradeAuthority: null };
  const header = decodeProgramDataHeader(new Uint8Array(pd.data));
  if (!header.ok) return { exists: true, slot: null, upgradeAuthority: null };
  return {
    exists: true,
    slot: Number(header.value.slot),
    upgradeAuthority: header.value.upgradeAuthority ? encodeBase58(header.value.upgradeAuthority) : null,
  };
}

/** The guard's reader of one network's pool program, through the network's RPC (failover included). */
export function solanaProgramSource(rpc: SolanaRpc, programId: string, commitment: Commitment): DeployedProgramSource {
  return {
    read: () => readDeployedProgram(rpc, programId, commitment),
    stamp: (programDataAddress) => readProgramDataStamp(rpc, programDataAddress, commitment),
  };
}
