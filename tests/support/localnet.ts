/**
 * A relay whose `mainnet` network is bound to `solana`, pointed at the local
 * validator (src-localnet: every transaction executed in LiteSVM, the pool
 * program and the cp-swap venue their SBF builds) over real JSON-RPC and
 * websocket: the relay process
 * is started exactly as operators start it (RELAY_CONFIG), and the tests make
 * deposits as a wallet would, with signed transactions through web3.js
 * (protocol v2: the wallet sends a precommitment, the program computes the leaf).
 */
import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Connection, Keypair, PublicKey, Transaction, type TransactionInstruction } from "@solana/web3.js";
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { createPoseidonHasher } from "../../src-shared/crypto/poseidon-wasm";
import { isZeroBytes } from "../../src-shared/encoding/field";
import type { Network } from "../../src-shared/networks";
import {
  DEFAULT_POOL_PROGRAM_ID,
  associatedTokenAddress,
  depositInstruction,
  depositReceiptAddress,
  initializePoolInstructions,
  poolVaultAddress,
  publicKeyBytes,
  revertNullifierOfReceipt,
} from "../../src-shared/pool-program";
import { encodeBase58 } from "../../src-shared/encoding/base58";
import { poolEventsOfResponse } from "../../src-shared/pool-program/leaves";
import type { CpPoolInfo } from "../../src-localnet/programs";
import { confirmSignature } from "../../src-localnet/confirm";
import { startLocalValidator, type LocalValidator } from "../../src-localnet/validator";
import { relayHarness, type HarnessFactory, type RelayHarness } from "./harness";
import { startRelay } from "./relay-process";
import { USDC, WSOL } from "./sandbox";
import type { ChainWallet, TestChain, TestDeposit } from "./test-chain";
import { post } from "./wallet";

const SOL = 1_000_000_000;

export interface Localnet {
  validator: LocalValidator;
  hasher: FieldHasher;
  connection: Connection;
  programId: string;
  /** The relayer's fee payer, also the pools' authority (it signs reverts) and the pool program's upgrade authority (it opened them). */
  relayer: Keypair;
  relayerKeyFile: string;
  dir: string;
  /** Sends instructions signed by the given keypairs (the first pays) and waits for confirmation. */
  send(instructions: TransactionInstruction[], signers: Keypair[]): Promise<string>;
  close(): Promise<void>;
}

/** Starts the local validator with the pool program at the default program id and opens the given pools (their mints created first). */
export async function startLocalnet(opts: { pools?: string[]; slotMs?: number; minDeposit?: bigint } = {}): Promise<Localnet> {
  const programId = DEFAULT_POOL_PROGRAM_ID;
  const hasher = await createPoseidonHasher();
  const validator = await startLocalValidator({ port: 0, slotMs: opts.slotMs ?? 50, poolProgramId: programId });
  const connection = new Connection(validator.rpcUrl, { commitment: "confirmed" });
  const dir = mkdtempSync(path.join(tmpdir(), "localnet-"));
  const relayer = Keypair.generate();
  const relayerKeyFile = path.join(dir, "relayer.json");
  // The relay refuses a keypair file others can read (readKeypairFile): owner-only whatever the umask.
  writeFileSync(relayerKeyFile, JSON.stringify(Array.from(relayer.secretKey)), { mode: 0o600 });
  chmodSync(relayerKeyFile, 0o600);
  await validator.airdrop(relayer.publicKey.toBase58(), 100 * SOL);

  const send = async (instructions: TransactionInstruction[], signers: Keypair[]): Promise<string> => {
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash("confirmed");
    const tx = new Transaction({ feePayer: signers[0]!.publicKey, blockhash, lastValidBlockHeight }).add(...instructions);
    tx.sign(...signers);
    const signature = await connection.sendRawTransaction(tx.serialize());
    await confirmSignature(connection, signature, lastValidBlockHeight);
    return signature;
  };
  // The relayer opens the pools, so it must be the program's upgrade authority (issue 25; LiteSVM deploys with none).
  await validator.setUpgradeAuthority(relayer.publicKey.toBase58());
  for (const mint of opts.pools ?? [USDC, WSOL]) {
    await validator.createMint(mint);
    // Minimum 1: the HTTP suites shared with the sandbox deposit a few base units (pool:init's defaults are 0.01 SOL, 1 USDC).
    await send(initializePoolInstructions({ programId, authority: relayer.publicKey.toBase58(), mint, minDeposit: opts.minDeposit ?? 1n }), [relayer]);
  }
  return {
    validator,
    hasher,
    connection,
    programId,
    relayer,
    relayerKeyFile,
    dir,
    send,
    close: async () => {
      await validator.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Deposits, balances and funding on the local validator, as a wallet does them. */
export function localnetTestChain(net: Localnet, relayUrl: string, network: Network = "mainnet"): TestChain {
  const { connection, programId } = net;
  const tokenBalance = async (account: string): Promise<bigint> => {
    const info = await connection.getAccountInfo(new PublicKey(account), "confirmed");
    if (!info) return 0n;
    return BigInt((await connection.getTokenAccountBalance(new PublicKey(account), "confirmed")).value.amount);
  };
  const depositEvent = async (signature: string) => {
    const tx = await connection.getTransaction(signature, { commitment: "confirmed", maxSupportedTransactionVersion: 0 });
    const events = tx ? poolEventsOfResponse(tx, programId) : [];
    const e = events.find((x) => x.name === "DepositEvent" || x.name === "DepositFailedEvent");
    if (!e || (e.name !== "DepositEvent" && e.name !== "DepositFailedEvent")) throw new Error(`no deposit event in ${signature}`);
    return e;
  };
  return {
    kind: "solana",
    network,
    fund: async (wallet, amount, mint) => {
      await net.validator.airdrop(wallet.address, SOL);
      await net.validator.mintTo(wallet.address, mint, BigInt(amount));
    },
    deposit: async (wallet: ChainWallet, precommitment, amount, mint): Promise<TestDeposit> => {
      if (!wallet.signBytes) throw new Error("a solana deposit needs a wallet that signs bytes");
      const nonce = randomBytes(8).readBigUInt64LE();
      const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash("confirmed");
      const tx = new Transaction({ feePayer: new PublicKey(wallet.address), blockhash, lastValidBlockHeight }).add(
        depositInstruction({ programId, depositor: wallet.address, mint, precommitment, amount: BigInt(amount), nonce, hasher: net.hasher }),
      );
      tx.addSignature(new PublicKey(wallet.address), Buffer.from(wallet.signBytes(tx.serializeMessage())));
      const signature = await connection.sendRawTransaction(tx.serialize());
      await confirmSignature(connection, signature, lastValidBlockHeight);
      const e = await depositEvent(signature);
      // The leaf the program computed (a failed deposit's is zero when the precommitment could not make one).
      if (e.name === "DepositFailedEvent") return { signature, status: "failed", leafIndex: null, commitment: isZeroBytes(e.commitment) ? null : e.commitment };
      // The relay follows the chain; a deposit is usable once its leaf is in the relay's tree.
      const deadline = Date.now() + 20_000;
      for (;;) {
        const r = await post(`${relayUrl}/get_merkle/${mint}/32/${network}`);
        const next = (r.json as { json?: { nextIndex?: number } } | undefined)?.json?.nextIndex ?? -1;
        if (next > e.leafIndex) break;
        if (Date.now() > deadline) throw new Error(`the relay did not index leaf ${e.leafIndex} of ${mint} within 20 s (nextIndex ${next})`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return { signature, status: "indexed", leafIndex: e.leafIndex, commitment: e.commitment };
    },
    balance: (owner, mint) => tokenBalance(associatedTokenAddress(owner, mint)),
    vaultBalance: (mint) => tokenBalance(poolVaultAddress(programId, mint)),
    revertNullifier: async (signature) => {
      const e = await depositEvent(signature);
      const mintOf = await connection.getTransaction(signature, { commitment: "confirmed", maxSupportedTransactionVersion: 0 });
      const keys = mintOf?.transaction.message.staticAccountKeys.map((k) => k.toBase58()) ?? [];
      const mint = [USDC, WSOL].find((m) => keys.includes(m));
      if (!mint) throw new Error(`cannot tell the mint of deposit ${signature}`);
      const receipt = depositReceiptAddress(programId, mint, encodeBase58(e.depositor), e.nonce);
      return revertNullifierOfReceipt(await createPoseidonHasher(), publicKeyBytes(receipt));
    },
  };
}

/** The relay config that binds `mainnet` to the local validator; devnet stays the sandbox. */
export function solanaRelayConfig(net: Localnet, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    // The network's swap venue: the validator's Jupiter-compatible API over its cp-swap pools (src-localnet/rpc/jupiter.ts).
    // The validator's cp-swap program is the venue's program here (allowlisted next to Jupiter v6's).
    jupiter: { baseUrl: net.validator.jupiterUrl, programIds: ["JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4", "CpSwap11111111111111111111111111111111111111"] },
    networks: {
      mainnet: {
        backend: "solana",
        // The local validator's pool program carries the development key, as the relay does (docs/security.md).
        allowDevelopmentVerifyingKey: true,
        rpcUrl: net.validator.rpcUrl,
        wsUrl: net.validator.wsUrl,
        programId: net.programId,
        pools: [USDC, WSOL],
        solana: {
          relayerKeypairPath: net.relayerKeyFile,
          pollMs: 200,
          rebroadcastMs: 300,
          // Test amounts are tiny: the rent of a nullifier account alone exceeds their fee.
          allowLoss: true,
          ...extra,
        },
      },
    },
  };
}

/** A relay bound to the local validator, with the validator at hand (faults, ledger). */
export interface SolanaHarness extends RelayHarness {
  localnet: Localnet;
  /**
   * Creates the validator's constant-product pool of a pair (the relay's
   * Jupiter venue routes through it), or sets its reserves; resolves with the
   * pool (address, vaults, lookup table, reserves in the pool's mint order).
   */
  createSwapPool(mintX: string, mintY: string, reserveX: bigint | number, reserveY: bigint | number): Promise<CpPoolInfo>;
}

export async function startSolanaHarness(env: Record<string, string> = {}, extraSolana: Record<string, unknown> = {}): Promise<SolanaHarness> {
  const net = await startLocalnet();
  const configFile = path.join(net.dir, "relay.json");
  writeFileSync(configFile, JSON.stringify(solanaRelayConfig(net, extraSolana)));
  const fullEnv = { RELAY_CONFIG: configFile, ...env };
  const relay = await startRelay(fullEnv);
  const h = relayHarness(
    "solana",
    relay,
    (dir) => startRelay(fullEnv, dir),
    (url) => localnetTestChain(net, url),
    net.programId,
    () => net.close(),
  );
  return Object.assign(h, {
    localnet: net,
    createSwapPool: (x: string, y: string, rx: bigint | number, ry: bigint | number) => net.validator.createSwapPool(x, y, rx, ry),
  });
}

/** The HTTP suites' harness for a solana network on the local validator. */
export const solanaHarness: HarnessFactory = (env = {}) => startSolanaHarness(env);
