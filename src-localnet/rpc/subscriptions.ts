/**
 * The websocket side: JSON-RPC over ws as rpc-websockets (web3.js's client)
 * speaks it, with Solana's subscriptions — signatureSubscribe (one
 * notification at the requested commitment, then the subscription is gone),
 * logsSubscribe, slotSubscribe, accountSubscribe, programSubscribe and their
 * *Unsubscribe methods.
 */
import type WebSocket from "ws";
import type { Ledger } from "../ledger/ledger";
import type { Commitment, TransactionRecord } from "../ledger/types";
import type { AccountState } from "../ledger/engine";
import {
  asParams,
  commitmentParam,
  configAt,
  EMPTY_ACCOUNT,
  encodeAccount,
  encodingParam,
  filtersParam,
  invalidParams,
  matchesFilters,
  pubkeyParam,
  RpcError,
  type AccountEncoding,
  type AccountFilter,
  type Params,
} from "./common";

type Subscription =
  | { kind: "signature"; socket: WebSocket; signature: string; commitment: Commitment }
  | { kind: "logs"; socket: WebSocket; mentions: string | null; commitment: Commitment }
  | { kind: "slot"; socket: WebSocket }
  | { kind: "account"; socket: WebSocket; address: string; encoding: AccountEncoding }
  | { kind: "program"; socket: WebSocket; program: string; encoding: AccountEncoding; filters: AccountFilter[] };

const UNSUBSCRIBE: Record<string, Subscription["kind"]> = {
  signatureUnsubscribe: "signature",
  logsUnsubscribe: "logs",
  slotUnsubscribe: "slot",
  accountUnsubscribe: "account",
  programUnsubscribe: "program",
};

export class SubscriptionHub {
  private nextId = 0;
  private readonly subs = new Map<number, Subscription>();
  private readonly sockets = new Set<WebSocket>();
  private readonly off: (() => void)[];

  constructor(private readonly ledger: Ledger) {
    this.off = [
      ledger.on("transaction", (r) => this.onCommitment("processed", r)),
      ledger.on("commitment", (level, r) => this.onCommitment(level, r)),
      ledger.on("slot", (slot) => this.onSlot(slot)),
      ledger.on("accounts", (addresses, slot) => this.onAccounts(addresses, slot)),
    ];
  }

  get connectionCount(): number {
    return this.sockets.size;
  }
  get subscriptionCount(): number {
    return this.subs.size;
  }

  attach(socket: WebSocket): void {
    this.sockets.add(socket);
    socket.on("message", (data: WebSocket.Data) => this.onMessage(socket, data.toString()));
    socket.on("close", () => this.detach(socket));
    socket.on("error", () => this.detach(socket));
  }

  /** Drops every connection abruptly (the node went down): clients see an abnormal close and reconnect. */
  terminateAll(): void {
    for (const s of [...this.sockets]) {
      s.terminate();
      this.detach(s);
    }
  }

  close(): void {
    for (const off of this.off) off();
    for (const s of [...this.sockets]) s.close(1001, "shutting down");
    this.sockets.clear();
    this.subs.clear();
  }

  private detach(socket: WebSocket): void {
    this.sockets.delete(socket);
    for (const [id, s] of this.subs) if (s.socket === socket) this.subs.delete(id);
  }

  private send(socket: WebSocket, message: unknown): void {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
  }

  private notify(id: number, method: string, result: unknown): void {
    const s = this.subs.get(id);
    if (s) this.send(s.socket, { jsonrpc: "2.0", method, params: { result, subscription: id } });
  }

  private onMessage(socket: WebSocket, text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      this.send(socket, { jsonrpc: "2.0", error: { code: -32700, message: "Parse error" }, id: null });
      return;
    }
    const requests = Array.isArray(message) ? message : [message];
    const answers = requests.map((req) => this.handle(socket, req)).filter((a) => a !== null);
    if (!answers.length) return;
    this.send(socket, Array.isArray(message) ? answers.map((a) => a.response) : answers[0]!.response);
    // Notifications owed right away (an already confirmed signature) go after the subscription id.
    for (const a of answers) a.after?.();
  }

  private handle(socket: WebSocket, req: unknown): { response: unknown; after?: () => void } | null {
    const r = req as { id?: unknown; method?: unknown; params?: unknown };
    const id = r?.id ?? null;
    if (!r || typeof r !== "object" || typeof r.method !== "string") {
      return { response: { jsonrpc: "2.0", error: { code: -32600, message: "Invalid request" }, id } };
    }
    // rpc-websockets' heartbeat ("ping") and other notifications carry no id and get no answer.
    if (r.id === undefined) return null;
    try {
      const { result, after } = this.call(socket, r.method, asParams(r.params));
      return { response: { jsonrpc: "2.0", result, id }, after };
    } catch (e) {
      const err = e instanceof RpcError ? e : new RpcError(-32603, (e as Error).message);
      return { response: { jsonrpc: "2.0", error: { code: err.code, message: err.message, ...(err.data !== undefined ? { data: err.data } : {}) }, id } };
    }
  }

  private call(socket: WebSocket, method: string, p: Params): { result: unknown; after?: () => void } {
    const unsubscribeKind = UNSUBSCRIBE[method];
    if (unsubscribeKind) {
      const id = p[0];
      const s = typeof id === "number" ? this.subs.get(id) : undefined;
      if (!s || s.socket !== socket || s.kind !== unsubscribeKind) throw invalidParams("Invalid subscription id.");
      this.subs.delete(id as number);
      return { result: true };
    }
    const id = ++this.nextId;
    switch (method) {
      case "signatureSubscribe": {
        if (typeof p[0] !== "string") throw invalidParams("Invalid param: signature");
        const config = configAt(p, 1);
        const commitment = commitmentParam(config);
        this.subs.set(id, { kind: "signature", socket, signature: p[0], commitment });
        return {
          result: id,
          after: () => {
            const r = this.ledger.getTransaction(p[0] as string);
            if (config.enableReceivedNotification === true && !r) {
              this.notify(id, "signatureNotification", { context: { slot: this.ledger.slot }, value: "receivedSignature" });
            }
            if (r && this.ledger.reached(r.slot, commitment)) this.notifySignature(id, r);
          },
        };
      }
      case "logsSubscribe": {
        const filter = p[0];
        let mentions: string | null;
        if (filter === "all" || filter === "allWithVotes") mentions = null;
        else if (filter && typeof filter === "object" && Array.isArray((filter as { mentions?: unknown }).mentions)) {
          const list = (filter as { mentions: unknown[] }).mentions;
          if (list.length !== 1) throw invalidParams("Invalid Request: Only 1 address supported");
          mentions = pubkeyParam(list[0]);
        } else throw invalidParams("Invalid params: logs filter");
        this.subs.set(id, { kind: "logs", socket, mentions, commitment: commitmentParam(configAt(p, 1)) });
        return { result: id };
      }
      case "slotSubscribe":
        this.subs.set(id, { kind: "slot", socket });
        return { result: id };
      case "accountSubscribe": {
        const address = pubkeyParam(p[0]);
        this.subs.set(id, { kind: "account", socket, address, encoding: encodingParam(configAt(p, 1), "base58") });
        return { result: id };
      }
      case "programSubscribe": {
        const program = pubkeyParam(p[0]);
        const config = configAt(p, 1);
        this.subs.set(id, { kind: "program", socket, program, encoding: encodingParam(config, "base58"), filters: filtersParam(config.filters) });
        return { result: id };
      }
      default:
        this.nextId -= 1;
        throw new RpcError(-32601, "Method not found");
    }
  }

  private notifySignature(id: number, r: TransactionRecord): void {
    this.notify(id, "signatureNotification", { context: { slot: r.slot }, value: { err: r.err } });
    this.subs.delete(id);
  }

  private onCommitment(level: Commitment, r: TransactionRecord): void {
    for (const [id, s] of this.subs) {
      if (s.kind === "signature" && s.commitment === level && s.signature === r.signature) this.notifySignature(id, r);
      else if (s.kind === "logs" && s.commitment === level && (s.mentions === null || r.accountKeys.includes(s.mentions))) {
        this.notify(id, "logsNotification", { context: { slot: r.slot }, value: { signature: r.signature, err: r.err, logs: r.logs } });
      }
    }
  }

  private onSlot(slot: number): void {
    for (const [id, s] of this.subs) {
      if (s.kind === "slot")
        this.notify(id, "slotNotification", { parent: Math.max(0, slot - 1), slot, root: Math.max(0, slot - this.ledger.finalizeAfterSlots) });
    }
  }

  /** `addresses` null: any account may have changed (a restore): every account subscription is notified, and every program subscription of all its program's accounts. */
  private onAccounts(addresses: string[] | null, slot: number): void {
    if (!this.subs.size) return;
    const all = addresses === null;
    const changed = new Set(addresses ?? []);
    for (const [id, s] of this.subs) {
      try {
        if (s.kind === "account" && (all || changed.has(s.address))) {
          const a = this.ledger.getAccount(s.address) ?? EMPTY_ACCOUNT;
          this.notify(id, "accountNotification", { context: { slot }, value: encodeAccount(a, s.encoding) });
        } else if (s.kind === "program") {
          const candidates: [string, AccountState | null][] = all
            ? this.ledger.accountsOwnedBy(s.program)
            : [...changed].map((a) => [a, this.ledger.getAccount(a)]);
          for (const [address, a] of candidates) {
            if (!a || a.owner !== s.program || !matchesFilters(a, s.filters)) continue;
            this.notify(id, "programNotification", { context: { slot }, value: { pubkey: address, account: encodeAccount(a, s.encoding) } });
          }
        }
      } catch {
        // An encoding the account does not fit (base58 over 128 bytes): nothing to send.
      }
    }
  }
}
