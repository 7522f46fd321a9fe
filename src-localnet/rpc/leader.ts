/**
 * The node's way to the "leader": simulations and deliveries through the
 * configured faults (injected simulation failures, expired blockhashes,
 * dropped or delayed transactions), and faucet airdrops as real signed
 * transfers.
 */
import { Keypair, PublicKey, SystemProgram, Transaction } from "@solana/web3.js";
import type { Faults } from "../faults";
import { transactionErrorText } from "../ledger/errors";
import type { Ledger } from "../ledger/ledger";
import { decodeTransaction, type DecodedTransaction } from "../ledger/transaction";
import { invalidParams, RpcError } from "./common";

export class Leader {
  private delayed: { dueSlot: number; tx: DecodedTransaction }[] = [];
  private readonly offSlot: () => void;

  constructor(
    private readonly ledger: Ledger,
    private readonly faults: Faults,
    private readonly faucet: Keypair,
  ) {
    this.offSlot = this.ledger.on("slot", (slot) => this.landDue(slot));
  }

  dispose(): void {
    this.offSlot();
    this.delayed = [];
  }

  /** Transactions accepted and held back by landDelaySlots. */
  get pendingDelayed(): number {
    return this.delayed.length;
  }

  async simulate(tx: DecodedTransaction, opts: Parameters<Ledger["simulate"]>[1]) {
    const injected = this.faults.takeSimulationFailure();
    if (injected) return { err: injected.err, logs: injected.logs, unitsConsumed: 0, innerInstructions: [], returnData: null, accounts: null };
    return this.ledger.simulate(tx, opts);
  }

  /** Delivers an accepted transaction to the "leader", through the faults. */
  deliver(tx: DecodedTransaction): void {
    if (this.faults.takeExpire()) {
      this.ledger.expireBlockhash(tx.recentBlockhash);
      return;
    }
    if (this.faults.takeDrop()) return;
    const delay = this.faults.landDelaySlots;
    if (delay > 0) {
      this.delayed.push({ dueSlot: this.ledger.slot + delay, tx });
      return;
    }
    void this.land(tx);
  }

  private landDue(slot: number): void {
    if (!this.delayed.length) return;
    const due = this.delayed.filter((d) => d.dueSlot <= slot);
    if (!due.length) return;
    this.delayed = this.delayed.filter((d) => d.dueSlot > slot);
    for (const d of due) void this.land(d.tx);
  }

  private async land(tx: DecodedTransaction) {
    try {
      return await this.ledger.submit(tx);
    } catch (e) {
      console.error(`[localnet] processing ${tx.signature} failed`, e);
      return null;
    }
  }

  /** Sends lamports from the faucet as a real signed transaction; resolves once it landed. */
  async airdrop(address: string, lamports: bigint): Promise<string> {
    if (lamports <= 0n) throw invalidParams("Invalid params: lamports must be positive");
    const { blockhash, lastValidBlockHeight } = this.ledger.latestBlockhash();
    const tx = new Transaction({ feePayer: this.faucet.publicKey, blockhash, lastValidBlockHeight }).add(
      SystemProgram.transfer({ fromPubkey: this.faucet.publicKey, toPubkey: new PublicKey(address), lamports }),
    );
    tx.sign(this.faucet);
    const decoded = decodeTransaction(tx.serialize());
    const outcome = await this.ledger.submit(decoded);
    if (!outcome.landed) throw new RpcError(-32603, `airdrop failed: ${transactionErrorText(outcome.err)}`);
    if (outcome.record.err) throw new RpcError(-32603, `airdrop failed: ${transactionErrorText(outcome.record.err)}`, { logs: outcome.record.logs });
    return outcome.record.signature;
  }
}
