declare module "circomlibjs" {
  /** circomlibjs's wasm Poseidon; its field helpers are reached through `F`. */
  export interface Poseidon {
    (inputs: ReadonlyArray<bigint | number | string | Uint8Array>): Uint8Array;
    F: { toObject(x: Uint8Array): bigint; e(x: bigint | number | string): Uint8Array };
  }
  export function buildPoseidon(): Promise<Poseidon>;
}
