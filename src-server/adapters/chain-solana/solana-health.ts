/** A Solana network's health checks: its RPC (slot, lag, endpoints) and its fee payer's balance and runway. */
import { PublicKey } from "@solana/web3.js";
import { NULLIFIER_ACCOUNT_SIZE } from "../../../src-shared/pool-program";
import type { HealthCheck } from "../../ports/chain";
import { LAMPORTS_PER_SIGNATURE } from "./fee-policy";
import type { LandingEngine } from "./landing-engine";
import { FailoverRpc } from "./rpc-failover";
import { short, type SolanaContext } from "./solana-context";

/** Landed costs remembered for the fee payer's runway. */
const COST_SAMPLES = 50;
const LAMPORTS_PER_SOL = 1_000_000_000;

/** The cost (network fee + rent) of the recent landed withdrawals. */
export class RelayCosts {
  private readonly costs: number[] = [];

  note(lamports: number): void {
    this.costs.push(lamports);
    if (this.costs.length > COST_SAMPLES) this.costs.shift();
  }

  /** Their average, else the estimate of one withdrawal (a signature and the nullifier account's rent). */
  async perRelay(engine: LandingEngine): Promise<number | null> {
    if (this.costs.length) return Math.ceil(this.costs.reduce((a, b) => a + b, 0) / this.costs.length);
    try {
      return LAMPORTS_PER_SIGNATURE + (await engine.rentExempt(NULLIFIER_ACCOUNT_SIZE));
    } catch {
      return null;
    }
  }
}

/** The RPC answers and is no more than maxSlotLag slots behind; with several endpoints, which are down. `where` names the RPC (redacted). */
export async function chainCheck(ctx: SolanaContext, where: string): Promise<HealthCheck> {
  const name = `chain:${ctx.network}`;
  const max = ctx.cfg.solana.maxSlotLag;
  try {
    const [h, slot] = await Promise.all([ctx.rpc.getHealth(), ctx.rpc.getSlot(ctx.cfg.solana.commitment)]);
    const eps = ctx.rpc instanceof FailoverRpc ? ctx.rpc.endpoints() : [];
    const down = eps.filter((e) => !e.healthy);
    const endpoints =
      eps.length > 1
        ? `; ${eps.length - down.length} of ${eps.length} endpoints healthy${down.length ? ` (down: ${down.map((e) => e.url).join(", ")})` : ""}`
        : "";
    if (h.ok) return { name, ok: true, detail: `solana RPC ${where} at slot ${slot}${h.unsupported ? " (no getHealth)" : ""}${endpoints}` };
    if (h.behindBySlots !== null) {
      const ok = h.behindBySlots <= max;
      return { name, ok, detail: `solana RPC ${where} at slot ${slot}, ${h.behindBySlots} slots behind the cluster (max ${max})` };
    }
    return { name, ok: false, detail: `solana RPC ${where} unhealthy: ${h.message.slice(0, 120)}` };
  } catch (e) {
    return { name, ok: false, detail: `solana RPC ${where} unreachable: ${short(e)}` };
  }
}

/** The fee payer holds at least minFeePayerLamports; the detail gives the runway in relays. */
export async function feePayerCheck(ctx: SolanaContext, costs: RelayCosts): Promise<HealthCheck> {
  const name = `fee-payer:${ctx.network}`;
  const min = ctx.cfg.solana.minFeePayerLamports;
  try {
    const balance = await ctx.rpc.getBalance(new PublicKey(ctx.signer.publicKey), ctx.cfg.solana.commitment);
    const per = await costs.perRelay(ctx.engine);
    const runway = per ? `, ≈ ${Math.floor(balance / per)} relays left at ${per} lamports each` : "";
    const ok = BigInt(balance) >= min;
    return { name, ok, detail: `${ctx.signer.address} holds ${sol(balance)} SOL (minimum ${sol(Number(min))})${runway}` };
  } catch (e) {
    return { name, ok: false, detail: `balance of ${ctx.signer.address} unavailable: ${short(e)}` };
  }
}

function sol(lamports: number): string {
  return (lamports / LAMPORTS_PER_SOL).toFixed(4);
}
