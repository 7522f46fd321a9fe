/**
 * TEST ORACLE, not what the validator runs: the constant-product venue's rules
 * in TypeScript (the SBF program programs/cp-swap is the venue). The cp-swap
 * program's differential test runs every transaction here too and compares.
 */
import { PublicKey } from "@solana/web3.js";
import { TOKEN_PROGRAM_ID } from "../../../src-shared/pool-program";
import { cpAmountOut } from "../../../src-shared/swap/constant-product";
import {
  CP_SWAP_ERRORS,
  CP_SWAP_PROGRAM_ID,
  CP_SWAP_TAG,
  cpVaultAddress,
  decodeCpPool,
  findCpPoolAddress,
} from "../../../src-localnet/programs/cp-swap-client";
import { accountAt, builtinError, customError, load } from "./runtime-helpers";
import { loadTokenAccount, transferTokensCpi } from "./spl-token";
import type { CompiledInstruction, ExecContext, Program } from "./types";

/** Units the model charges for a swap (the SBF program measures its own). */
export const CP_SWAP_UNITS = { swap: 24_000 } as const;

export class CpSwapProgram implements Program {
  readonly baseUnits = CP_SWAP_UNITS.swap;
  constructor(readonly id: string = CP_SWAP_PROGRAM_ID) {}

  execute(ix: CompiledInstruction, ctx: ExecContext): void {
    const data = ix.data;
    if (data.length !== 17 || data[0] !== CP_SWAP_TAG)
      throw builtinError("InvalidInstructionData", "cp-swap: expected swap (tag 1, amountIn u64, minAmountOut u64)");
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    const amountIn = view.getBigUint64(1, true);
    const minAmountOut = view.getBigUint64(9, true);
    ctx.log("Program log: Instruction: Swap");
    ctx.consumeUnits(CP_SWAP_UNITS.swap);
    const pool = accountAt(ix.accounts, 0);
    const vaultIn = accountAt(ix.accounts, 1);
    const vaultOut = accountAt(ix.accounts, 2);
    const user = accountAt(ix.accounts, 3);
    const source = accountAt(ix.accounts, 4);
    const destination = accountAt(ix.accounts, 5);
    if (accountAt(ix.accounts, 6).address !== TOKEN_PROGRAM_ID) throw builtinError("IncorrectProgramId", "cp-swap: the token program is not TOKEN_PROGRAM_ID");
    const fail = (name: keyof typeof CP_SWAP_ERRORS, detail: string) =>
      customError(ctx, CP_SWAP_ERRORS[name].code, `${name}: ${detail}`, CP_SWAP_ERRORS[name].log);

    const raw = load(ctx, pool.address);
    const state = raw && raw.owner === this.id ? decodeCpPool(raw.data) : null;
    if (!state || findCpPoolAddress(state.mintA, state.mintB, this.id)[0] !== pool.address)
      throw fail("InvalidPool", `${pool.address} is not a pool of this program`);
    const inTa = loadTokenAccount(ctx, vaultIn.address);
    const outTa = loadTokenAccount(ctx, vaultOut.address);
    if (!inTa || !outTa) throw fail("InvalidPool", "a vault is not a token account");
    const inputMint = new PublicKey(inTa.mint).toBase58();
    const outputMint = new PublicKey(outTa.mint).toBase58();
    const pair = new Set([state.mintA, state.mintB]);
    if (inputMint === outputMint || !pair.has(inputMint) || !pair.has(outputMint)) throw fail("InvalidPool", "the vaults are not the pool's two mints");
    if (vaultIn.address !== cpVaultAddress(pool.address, inputMint) || vaultOut.address !== cpVaultAddress(pool.address, outputMint)) {
      throw fail("InvalidPool", "a vault is not the pool's associated token account");
    }
    const src = loadTokenAccount(ctx, source.address);
    const dst = loadTokenAccount(ctx, destination.address);
    if (!src || new PublicKey(src.mint).toBase58() !== inputMint) throw fail("InvalidTokenAccount", "the source is not a token account of the input mint");
    if (!dst || new PublicKey(dst.mint).toBase58() !== outputMint)
      throw fail("InvalidTokenAccount", "the destination is not a token account of the output mint");
    if (amountIn === 0n) throw fail("ZeroAmount", "amountIn is zero");
    if (inTa.amount === 0n || outTa.amount === 0n) throw fail("EmptyReserve", "the pool has an empty reserve");
    const amountOut = cpAmountOut(amountIn, inTa.amount, outTa.amount);
    if (amountOut < minAmountOut) throw fail("SlippageToleranceExceeded", `the swap pays ${amountOut}, below the minimum ${minAmountOut}`);

    transferTokensCpi(ctx, { source, destination: vaultIn, authority: user, amount: amountIn });
    transferTokensCpi(ctx, { source: vaultOut, destination, authority: pool, authoritySignedByProgram: true, amount: amountOut });
    ctx.log(`Program log: swap ${amountIn} ${inputMint} -> ${amountOut} ${outputMint}`);
  }
}
