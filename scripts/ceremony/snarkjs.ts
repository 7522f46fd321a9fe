/** The slice of snarkjs the ceremony uses, typed (snarkjs ships no declarations). */
// @ts-expect-error -- snarkjs ships no type declarations; the slice used here is typed below.
import * as snarkjsUntyped from "snarkjs";

/** snarkjs logs through this; `verify` keeps its INVALID lines to say why a zkey does not follow. */
export interface SnarkjsLogger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface SnarkjsVerificationKey {
  protocol: string;
  curve: string;
  nPublic: number;
  [key: string]: unknown;
}

interface SnarkjsSlice {
  r1cs: { info(r1csPath: string, logger?: SnarkjsLogger): Promise<{ nConstraints: number; nPubInputs: number; nOutputs: number; nVars: number }> };
  zKey: {
    newZKey(r1csPath: string, ptauPath: string, zkeyPath: string, logger?: SnarkjsLogger): Promise<unknown>;
    /** Returns the contribution's hash (blake2b of its public key), or throws. */
    contribute(oldZkey: string, newZkey: string, name: string, entropy: string, logger?: SnarkjsLogger): Promise<Uint8Array>;
    /** Returns the contribution's hash, or false when the parameters are refused (hash length, iterations). */
    beacon(
      oldZkey: string,
      newZkey: string,
      name: string,
      beaconHashHex: string,
      numIterationsExp: number,
      logger?: SnarkjsLogger,
    ): Promise<Uint8Array | false>;
    verifyFromR1cs(r1csPath: string, ptauPath: string, zkeyPath: string, logger?: SnarkjsLogger): Promise<boolean>;
    verifyFromInit(initZkey: string, ptauPath: string, zkeyPath: string, logger?: SnarkjsLogger): Promise<boolean>;
    exportVerificationKey(zkeyPath: string, logger?: SnarkjsLogger): Promise<SnarkjsVerificationKey>;
  };
  powersOfTau: {
    newAccumulator(curve: unknown, power: number, ptauPath: string, logger?: SnarkjsLogger): Promise<unknown>;
    contribute(oldPtau: string, newPtau: string, name: string, entropy: string, logger?: SnarkjsLogger): Promise<unknown>;
    beacon(oldPtau: string, newPtau: string, name: string, beaconHashHex: string, numIterationsExp: number, logger?: SnarkjsLogger): Promise<unknown>;
    preparePhase2(oldPtau: string, newPtau: string, logger?: SnarkjsLogger): Promise<unknown>;
  };
  curves: { getCurveFromName(name: string): Promise<{ terminate(): Promise<void> }> };
}

export const snarkjs = snarkjsUntyped as unknown as SnarkjsSlice;

/** A logger that keeps snarkjs quiet and remembers its warnings and errors (the reason a check failed). */
export function collectingLogger(): SnarkjsLogger & { problems: string[] } {
  const problems: string[] = [];
  return { problems, debug: () => {}, info: () => {}, warn: (m) => problems.push(m), error: (m) => problems.push(m) };
}
