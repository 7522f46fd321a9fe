declare module "ffjavascript" {
  export interface Bn128Curve {
    terminate(): Promise<void>;
  }
  export function buildBn128(singleThread?: boolean): Promise<Bn128Curve>;
}
