/**
 * The local validator, assembled: a ledger producing slots on a timer,
 * LiteSVM executing its transactions (the real System, SPL Token and
 * Associated Token programs, and this repo's SBF programs), JSON-RPC over
 * HTTP and the websocket endpoint on 127.0.0.1, and the fault switches. An unmodified web3.js Connection talks
 * to it (pass `wsEndpoint: validator.wsUrl`, or set `alsoListenPortPlusOne`
 * for web3.js's default of port + 1).
 */
import { Keypair, PublicKey } from "@solana/web3.js";
import { Faults } from "./faults";
import { Ledger, type LedgerOptions } from "./ledger/ledger";
import type { LedgerSnapshot } from "./ledger/types";
import { RpcNode } from "./rpc/methods";
import { startRpcServer, type RpcServer } from "./rpc/server";
import { JUPITER_PATH, LocalJupiterApi } from "./rpc/jupiter";
import { createCpPool, readCpPool, type CpPoolInfo } from "./programs/cp-swap-client";
import { SubscriptionHub } from "./rpc/subscriptions";
import { SYSTEM_PROGRAM_ID } from "./ledger/transaction";
import { SvmEngine, type SbfProgram } from "./ledger/svm";
import { defaultSbfPrograms } from "./programs";
import { DEFAULT_POOL_PROGRAM_ID, decodeProgramDataHeader, encodeProgramDataHeader, programDataAddress, publicKeyBytes } from "../src-shared/pool-program";

export interface LocalValidatorOptions extends LedgerOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Also serve HTTP and websocket on port + 1 (solana-test-validator's 8899/8900 layout). */
  alsoListenPortPlusOne?: boolean;
  /** Slot duration in ms (default 50; the CLI uses 400). */
  slotMs?: number;
  /**
   * SBF programs LiteSVM loads besides its own (System, Compute Budget, SPL
   * Token, Token-2022, Associated Token, Memo, Address Lookup Table). Default:
   * the pool program (programs/pool/pool.so) at `poolProgramId` and the cp-swap
   * venue (programs/cp-swap/cp-swap.so) at CP_SWAP_PROGRAM_ID.
   */
  sbfPrograms?: SbfProgram[];
  /** Where the default pool program is deployed (default DEFAULT_POOL_PROGRAM_ID). */
  poolProgramId?: string;
  /**
   * The pool program's upgrade authority (base58), the one key its
   * initialize_pool accepts (issue 25). Default none, as LiteSVM deploys it:
   * nobody can open a pool until {@link LocalValidator.setUpgradeAuthority} names one.
   */
  poolUpgradeAuthority?: string | null;

  /** The faucet's lamports at genesis (default 1 000 000 SOL). */
  faucetLamports?: bigint | number;
  /** The faucet key (default: a fresh one). */
  faucet?: Keypair;
}

export interface LocalValidator {
  /** http://127.0.0.1:<port> */
  readonly rpcUrl: string;
  /** ws://127.0.0.1:<port> (the same port as HTTP). */
  readonly wsUrl: string;
  readonly port: number;
  readonly ledger: Ledger;
  readonly faults: Faults;
  readonly faucet: Keypair;
  /** Live websocket subscriptions (a test waits for one before acting on its notification). */
  readonly subscriptionCount: number;
  /**
   * Sets (a base58 key) or drops (null) the upgrade authority of an
   * upgradeable program (default: the pool program) in its ProgramData
   * header, the program's bytes untouched: the pool program lets only that
   * key initialize pools. Rejects for a program without ProgramData.
   */
  setUpgradeAuthority(authority: string | null, programId?: string): Promise<void>;
  /** The upgrade authority of a program (default: the pool program), null when it has none. */
  upgradeAuthority(programId?: string): string | null;
  /**
   * Deploys another ELF (bytes or a `.so` path) at an upgradeable program's id (default: the
   * pool program), as the loader's Upgrade leaves it: ProgramData holds the new ELF with the
   * current slot as its last-deployed slot, the upgrade authority kept, and LiteSVM runs the
   * new program from the next transaction. Resolves with that slot.
   */
  deployProgram(so: Uint8Array | string, programId?: string): Promise<number>;
  /** Creates an SPL token mint (no authority) unless it exists; resolves with its decimals (default 9 for wrapped SOL, 6 otherwise). */
  createMint(mint: string, decimals?: number): Promise<number>;
  /** The Jupiter-compatible swap API (rpc/jupiter.ts) over the cp-swap pools. */
  readonly jupiter: LocalJupiterApi;
  /** `<rpcUrl>/jupiter/swap/v1`: what the relay's jupiter.baseUrl points at. */
  readonly jupiterUrl: string;
  /**
   * Creates the constant-product pool of a pair (the cp-swap program, programs/cp-swap) with
   * these reserves, or sets an existing pool's reserves to them.
   */
  createSwapPool(mintX: string, mintY: string, reserveX: bigint | number, reserveY: bigint | number): Promise<CpPoolInfo>;
  /** A pair's pool and reserves, or null. */
  swapPool(mintX: string, mintY: string): CpPoolInfo | null;
  /** Lamports from the faucet as a real signed transfer; resolves with its signature once it landed. */
  airdrop(address: string, lamports: bigint | number): Promise<string>;
  /** Credits SPL tokens to the owner's associated token account (created if missing); resolves with the token account. */
  mintTo(owner: string, mint: string, amount: bigint | number): Promise<string>;
  /** Produces n slots now (in addition to the timer). */
  advanceSlots(n?: number): void;
  /** Produces slots until `blockhash` (default: the latest) is past its last valid block height; nothing for an unknown or expired one. */
  expireBlockhash(blockhash?: string): void;
  /** Resolves once the ledger reached `slot`. */
  waitForSlot(slot: number): Promise<void>;
  snapshot(): Promise<LedgerSnapshot>;
  restore(snapshot: LedgerSnapshot): Promise<void>;
  /**
   * Another JSON-RPC and websocket endpoint over the same ledger, with its
   * own faults: a second RPC provider of the same cluster (the relay's
   * failover between endpoints is tested with it). Its close() stops only it.
   */
  addRpcEndpoint(): Promise<ExtraRpcEndpoint>;
  close(): Promise<void>;
}

export interface ExtraRpcEndpoint {
  readonly rpcUrl: string;
  readonly wsUrl: string;
  readonly faults: Faults;
  close(): Promise<void>;
}

const CLOSE_DRAIN_MS = 150;

export const DEFAULT_FAUCET_LAMPORTS = 1_000_000n * 1_000_000_000n;

/** The ProgramData headers of the ledger's upgradeable programs: LiteSVM deploys with no upgrade authority, so the header is ours to write. */
function programDataHeaders(ledger: Ledger) {
  const programData = (programId: string): { address: string; data: Uint8Array; slot: bigint; authority: Uint8Array | null } => {
    const address = programDataAddress(programId);
    const account = ledger.getAccount(address);
    if (!account) throw new Error(`${programId} has no ProgramData account (not deployed upgradeable)`);
    const header = decodeProgramDataHeader(account.data);
    if (!header.ok) throw new Error(`${programId}: ${header.error}`);
    return { address, data: account.data, slot: header.value.slot, authority: header.value.upgradeAuthority };
  };
  const writeUpgradeAuthority = (authority: string | null, programId: string): void => {
    const pd = programData(programId);
    const account = ledger.getAccount(pd.address)!;
    const data = pd.data.slice();
    data.set(encodeProgramDataHeader({ slot: pd.slot, upgradeAuthority: authority === null ? null : publicKeyBytes(authority) }));
    ledger.setAccount(pd.address, { ...account, data });
  };
  return { programData, writeUpgradeAuthority };
}

interface Endpoint {
  node: RpcNode;
  hub: SubscriptionHub;
  faults: Faults;
  host: string;
  jupiter: LocalJupiterApi;
}

/** The RPC server on `port` (0: a free one), and on port + 1 if asked; with port 0, a free pair (a free port's neighbour may be taken). */
async function listen(e: Endpoint, port: number | undefined, alsoListenPortPlusOne: boolean | undefined): Promise<RpcServer[]> {
  const servers: RpcServer[] = [];
  for (let attempt = 1; ; attempt++) {
    try {
      const main = await startRpcServer({ ...e, port: port ?? 0 });
      servers.push(main);
      if (alsoListenPortPlusOne) servers.push(await startRpcServer({ ...e, port: main.port + 1 }));
      return servers;
    } catch (err) {
      await Promise.all(servers.splice(0).map((s) => s.close()));
      const inUse = (err as NodeJS.ErrnoException).code === "EADDRINUSE";
      if (!(inUse && alsoListenPortPlusOne && !port && attempt < 20)) throw err;
    }
  }
}

/** A second JSON-RPC and websocket endpoint over the same ledger with its own faults; its close() also leaves `extras`. */
async function startExtraEndpoint(
  ledger: Ledger,
  shared: { faucet: Keypair; host: string; urlHost: string; jupiter: LocalJupiterApi; info: () => { rpcUrl: string; wsUrl: string; slotMs: number } },
  extras: Set<ExtraRpcEndpoint>,
): Promise<ExtraRpcEndpoint> {
  const { faucet, host, urlHost, jupiter, info } = shared;
  const extraFaults = new Faults();
  const extraNode = new RpcNode({ ledger, faults: extraFaults, faucet, info });
  const extraHub = new SubscriptionHub(ledger);
  const offExtraFaults = extraFaults.onChange((s) => {
    if (s.down) extraHub.terminateAll();
  });
  const server = await startRpcServer({ node: extraNode, hub: extraHub, faults: extraFaults, host, port: 0, jupiter });
  let stopped = false;
  const extra: ExtraRpcEndpoint = {
    rpcUrl: `http://${urlHost}:${server.port}`,
    wsUrl: `ws://${urlHost}:${server.port}`,
    faults: extraFaults,
    close: async () => {
      if (stopped) return;
      stopped = true;
      extras.delete(extra);
      offExtraFaults();
      extraNode.dispose();
      extraHub.close();
      await server.close();
    },
  };
  extras.add(extra);
  return extra;
}

function waitForSlot(ledger: Ledger, slot: number): Promise<void> {
  return new Promise<void>((resolve) => {
    if (ledger.slot >= slot) return resolve();
    const off = ledger.on("slot", (s) => {
      if (s >= slot) {
        off();
        resolve();
      }
    });
  });
}

export async function startLocalValidator(opts: LocalValidatorOptions = {}): Promise<LocalValidator> {
  const host = opts.host ?? "127.0.0.1";
  const slotMs = opts.slotMs ?? 50;
  const engine = new SvmEngine(opts.sbfPrograms ?? defaultSbfPrograms({ poolProgramId: opts.poolProgramId }));
  const ledger = new Ledger(opts, engine);
  const poolProgramId = opts.poolProgramId ?? DEFAULT_POOL_PROGRAM_ID;
  const { programData, writeUpgradeAuthority } = programDataHeaders(ledger);
  if (opts.poolUpgradeAuthority) writeUpgradeAuthority(opts.poolUpgradeAuthority, poolProgramId);
  const faults = new Faults();
  const faucet = opts.faucet ?? Keypair.generate();
  ledger.setAccount(faucet.publicKey.toBase58(), {
    lamports: BigInt(opts.faucetLamports ?? DEFAULT_FAUCET_LAMPORTS),
    owner: SYSTEM_PROGRAM_ID,
    data: new Uint8Array(0),
    executable: false,
  });

  let urls: { rpcUrl: string; wsUrl: string } = { rpcUrl: "", wsUrl: "" };
  const node = new RpcNode({ ledger, faults, faucet, info: () => ({ ...urls, slotMs }) });
  const hub = new SubscriptionHub(ledger);
  const jupiter = new LocalJupiterApi({ ledger });
  const offFaults = faults.onChange((s) => {
    if (s.down) hub.terminateAll();
  });

  const servers = await listen({ node, hub, faults, host, jupiter }, opts.port, opts.alsoListenPortPlusOne);
  const port = servers[0]!.port;
  const urlHost = host.includes(":") ? `[${host}]` : host;
  urls = { rpcUrl: `http://${urlHost}:${port}`, wsUrl: `ws://${urlHost}:${port}` };

  const timer = setInterval(() => ledger.advanceSlots(1), slotMs);

  let closed = false;
  const extras = new Set<ExtraRpcEndpoint>();
  return {
    rpcUrl: urls.rpcUrl,
    wsUrl: urls.wsUrl,
    port,
    ledger,
    faults,
    faucet,
    get subscriptionCount() {
      return hub.subscriptionCount;
    },
    setUpgradeAuthority: async (authority, programId = poolProgramId) => {
      await ledger.idle();
      writeUpgradeAuthority(authority, programId);
    },
    deployProgram: async (so, programId = poolProgramId) => {
      await ledger.idle();
      const { authority } = programData(programId);
      engine.runtime.addProgram({ id: programId, so });
      const pd = programData(programId);
      const data = pd.data.slice();
      const slot = ledger.slot;
      data.set(encodeProgramDataHeader({ slot: BigInt(slot), upgradeAuthority: authority }));
      ledger.setAccount(pd.address, { ...ledger.getAccount(pd.address)!, data });
      return slot;
    },
    upgradeAuthority: (programId = poolProgramId) => {
      const authority = programData(programId).authority;
      return authority === null ? null : new PublicKey(authority).toBase58();
    },
    createMint: async (mint, decimals) => {
      await ledger.idle();
      return ledger.createMint(mint, decimals);
    },
    jupiter,
    jupiterUrl: `${urls.rpcUrl}${JUPITER_PATH}`,
    createSwapPool: async (x, y, rx, ry) => {
      await ledger.idle();
      return createCpPool(ledger, x, y, BigInt(rx), BigInt(ry));
    },
    swapPool: (x, y) => readCpPool(ledger, x, y),
    airdrop: (address, lamports) => node.airdrop(address, BigInt(lamports)),
    mintTo: async (owner, mint, amount) => ledger.mintTo(owner, mint, BigInt(amount)),
    advanceSlots: (n = 1) => ledger.advanceSlots(n),
    expireBlockhash: (blockhash = ledger.latestBlockhash().blockhash) => ledger.expireBlockhash(blockhash),
    waitForSlot: (slot) => waitForSlot(ledger, slot),
    snapshot: async () => {
      await ledger.idle();
      return ledger.snapshot();
    },
    restore: async (snapshot) => {
      await ledger.idle();
      ledger.restore(snapshot);
    },
    addRpcEndpoint: () => startExtraEndpoint(ledger, { faucet, host, urlHost, jupiter, info: () => ({ ...urls, slotMs }) }, extras),
    close: async () => {
      if (closed) return;
      closed = true;
      await Promise.all([...extras].map((e) => e.close()));
      offFaults();
      faults.clear();
      // web3.js polls a signature's status once more after every confirmation, without catching a failure:
      // keep answering for a moment so that a client closing right after a confirmation sees no rejection.
      await new Promise((r) => setTimeout(r, CLOSE_DRAIN_MS));
      clearInterval(timer);
      node.dispose();
      hub.close();
      await Promise.all(servers.map((s) => s.close()));
      await ledger.idle().catch(() => undefined);
    },
  };
}
