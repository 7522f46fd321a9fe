// Tests that run our SBF programs in the real Solana runtime: a small typed wrapper over
// npm litesvm's raw `LiteSvm` (sysvars, builtins, SPL Token/Token-2022/ATA/Memo, signatures
// checked), taking and answering web3.js v1 types.

import { readFileSync } from "node:fs";
import {
  Account,
  FailedTransactionMetadata,
  LiteSvm,
  TransactionErrorInstructionError,
  InstructionErrorCustom,
  type TransactionMetadata,
} from "litesvm/dist/internal.js";
import bs58 from "bs58";
import { Keypair, PublicKey, Transaction, TransactionInstruction, VersionedTransaction } from "@solana/web3.js";

export const TOKEN_PROGRAM_ID = new PublicKey("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
export const ASSOCIATED_TOKEN_PROGRAM_ID = new PublicKey("ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL");
export const MINT_SIZE = 82;
export const TOKEN_ACCOUNT_SIZE = 165;

/** The transaction error in the RPC's JSON shape, e.g. { InstructionError: [0, { Custom: 6 }] }. */
export type InstructionErrorJson = string | { Custom: number } | { [name: string]: unknown };
export type TxErrorJson = string | { InstructionError: [number, InstructionErrorJson] } | { [name: string]: unknown };

export interface TxResult {
  ok: boolean;
  /** Base58 signature. */
  signature: string;
  logs: string[];
  computeUnits: number;
  /** The runtime's text of the error, e.g. "InstructionError(0, Custom(6))"; undefined when ok. */
  error?: string;
  /** The error as the RPC would report it, e.g. { InstructionError: [0, { Custom: 6 }] }. */
  err?: TxErrorJson;
  /** The custom program error code n of InstructionError(_, Custom(n)), when that is the error. */
  custom?: number;
  /** The messages of "Program log: ..." lines, without the prefix. */
  programLogs: string[];
  returnData: Uint8Array;
}

export interface AccountState {
  lamports: bigint;
  data: Uint8Array;
  owner: PublicKey;
  executable: boolean;
}

function instructionErrorJson(text: string): InstructionErrorJson {
  const custom = /^Custom\((\d+)\)$/.exec(text);
  if (custom) return { Custom: Number(custom[1]) };
  const withArg = /^(\w+)\((.*)\)$/.exec(text);
  if (withArg) return { [withArg[1]!]: withArg[2]!.replace(/^"|"$/g, "") };
  return text;
}

function errorJson(text: string): TxErrorJson {
  const ix = /^InstructionError\((\d+), (.*)\)$/.exec(text);
  if (ix) return { InstructionError: [Number(ix[1]), instructionErrorJson(ix[2]!)] };
  const withFields = /^(\w+) \{ (\w+): (\d+) \}$/.exec(text);
  if (withFields) return { [withFields[1]!]: { [withFields[2]!]: Number(withFields[3]) } };
  return text;
}

function result(r: TransactionMetadata | FailedTransactionMetadata): TxResult {
  const failed = r instanceof FailedTransactionMetadata;
  const meta = failed ? r.meta() : r;
  const logs = meta.logs();
  const out: TxResult = {
    ok: !failed,
    signature: bs58.encode(meta.signature()),
    logs,
    computeUnits: Number(meta.computeUnitsConsumed()),
    programLogs: logs.filter((l) => l.startsWith("Program log: ")).map((l) => l.slice("Program log: ".length)),
    returnData: meta.returnData().data(),
  };
  if (failed) {
    const text = /err: (.*?), meta: TransactionMetadata/s.exec(r.toString())?.[1] ?? r.toString();
    out.error = text;
    out.err = errorJson(text);
    const e = r.err();
    if (e instanceof TransactionErrorInstructionError) {
      const inner = e.err();
      if (inner instanceof InstructionErrorCustom) out.custom = inner.code;
    }
  }
  return out;
}

export class Svm {
  readonly raw: LiteSvm;

  /** A runtime with sysvars, builtins, SPL Token/Token-2022/ATA/Memo and signature checks. */
  constructor() {
    this.raw = new LiteSvm();
    this.raw.setSysvars();
    this.raw.setBuiltins();
    this.raw.setDefaultPrograms();
    this.raw.setSigverify(true);
  }

  /** Deploy a program from its .so bytes or path; returns its id (random unless given). */
  addProgram(so: Uint8Array | string, programId: PublicKey = Keypair.generate().publicKey): PublicKey {
    this.raw.addProgram(programId.toBytes(), typeof so === "string" ? readFileSync(so) : so);
    return programId;
  }

  airdrop(to: PublicKey, lamports: bigint | number): void {
    const r = this.raw.airdrop(to.toBytes(), BigInt(lamports));
    if (r instanceof FailedTransactionMetadata) throw new Error(`airdrop failed: ${r.toString()}`);
  }

  /** A new keypair holding `lamports` (10 SOL by default). */
  fundedKeypair(lamports: bigint | number = 10_000_000_000n): Keypair {
    const kp = Keypair.generate();
    this.airdrop(kp.publicKey, lamports);
    return kp;
  }

  setAccount(address: PublicKey, state: { lamports?: bigint | number; data?: Uint8Array; owner: PublicKey; executable?: boolean }): void {
    const data = state.data ?? new Uint8Array(0);
    const lamports = state.lamports === undefined ? this.rentExempt(data.length) : BigInt(state.lamports);
    this.raw.setAccount(address.toBytes(), new Account(lamports, data, state.owner.toBytes(), state.executable ?? false, 0n));
  }

  getAccount(address: PublicKey): AccountState | undefined {
    const a = this.raw.getAccount(address.toBytes());
    if (!a) return undefined;
    return { lamports: a.lamports(), data: a.data(), owner: new PublicKey(a.owner()), executable: a.executable() };
  }

  balance(address: PublicKey): bigint {
    return this.raw.getBalance(address.toBytes()) ?? 0n;
  }

  rentExempt(dataLen: number): bigint {
    return this.raw.minimumBalanceForRentExemption(BigInt(dataLen));
  }

  latestBlockhash(): string {
    return this.raw.latestBlockhash();
  }

  private prepare(tx: Transaction | VersionedTransaction | TransactionInstruction[], signers: Keypair[]): { legacy: boolean; bytes: Uint8Array } {
    if (Array.isArray(tx)) tx = new Transaction().add(...tx);
    if (tx instanceof VersionedTransaction) {
      tx.message.recentBlockhash = this.latestBlockhash();
      tx.signatures = tx.signatures.map(() => new Uint8Array(64));
      tx.sign(signers);
      return { legacy: false, bytes: tx.serialize() };
    }
    if (!tx.feePayer) {
      const payer = signers[0];
      if (!payer) throw new Error("send: no fee payer and no signer");
      tx.feePayer = payer.publicKey;
    }
    tx.recentBlockhash = this.latestBlockhash();
    tx.signatures = [];
    if (signers.length > 0) tx.sign(...signers);
    return { legacy: true, bytes: tx.serialize({ requireAllSignatures: false, verifySignatures: false }) };
  }

  /** Sign (against latestBlockhash) and execute; the first signer pays unless feePayer is set. */
  send(tx: Transaction | VersionedTransaction | TransactionInstruction[], signers: Keypair[]): TxResult {
    const { legacy, bytes } = this.prepare(tx, signers);
    return result(legacy ? this.raw.sendLegacyTransaction(bytes) : this.raw.sendVersionedTransaction(bytes));
  }

  /** Like send, without committing anything. */
  simulate(tx: Transaction | VersionedTransaction | TransactionInstruction[], signers: Keypair[]): TxResult {
    const { legacy, bytes } = this.prepare(tx, signers);
    const r = legacy ? this.raw.simulateLegacyTransaction(bytes) : this.raw.simulateVersionedTransaction(bytes);
    return result(r instanceof FailedTransactionMetadata ? r : r.meta());
  }

  /** Move to a new blockhash (so an identical transaction can be sent again). */
  expireBlockhash(): void {
    this.raw.expireBlockhash();
  }

  /** An initialized SPL Token mint (state written directly) with the given authority. */
  createMint(mintAuthority: PublicKey, decimals = 6, address: PublicKey = Keypair.generate().publicKey): PublicKey {
    const data = new Uint8Array(MINT_SIZE);
    const v = new DataView(data.buffer);
    v.setUint32(0, 1, true); // COption::Some
    data.set(mintAuthority.toBytes(), 4);
    v.setBigUint64(36, 0n, true); // supply
    data[44] = decimals;
    data[45] = 1; // is_initialized
    this.setAccount(address, { data, owner: TOKEN_PROGRAM_ID });
    return address;
  }

  /**
   * An initialized SPL token account of `owner` holding `amount` (the mint's supply grows to
   * match). The address is the owner's associated token account unless given.
   */
  createTokenAccount(mint: PublicKey, owner: PublicKey, amount: bigint | number = 0n, address?: PublicKey): PublicKey {
    const at = address ?? associatedTokenAddress(mint, owner);
    const data = new Uint8Array(TOKEN_ACCOUNT_SIZE);
    const v = new DataView(data.buffer);
    data.set(mint.toBytes(), 0);
    data.set(owner.toBytes(), 32);
    v.setBigUint64(64, BigInt(amount), true);
    data[108] = 1; // AccountState::Initialized
    this.setAccount(at, { data, owner: TOKEN_PROGRAM_ID });
    const m = this.getAccount(mint);
    if (!m || !m.owner.equals(TOKEN_PROGRAM_ID)) throw new Error(`createTokenAccount: ${mint.toBase58()} is not a mint`);
    const md = Uint8Array.from(m.data);
    const mv = new DataView(md.buffer);
    mv.setBigUint64(36, mv.getBigUint64(36, true) + BigInt(amount), true);
    this.setAccount(mint, { lamports: m.lamports, data: md, owner: TOKEN_PROGRAM_ID });
    return at;
  }

  /** The amount held by an SPL token account (0 when it does not exist). */
  tokenBalance(tokenAccount: PublicKey): bigint {
    const a = this.getAccount(tokenAccount);
    if (!a || a.data.length < 72) return 0n;
    return new DataView(a.data.buffer, a.data.byteOffset, a.data.byteLength).getBigUint64(64, true);
  }
}

/** The associated token account address of (mint, owner) for SPL Token. */
export function associatedTokenAddress(mint: PublicKey, owner: PublicKey): PublicKey {
  return PublicKey.findProgramAddressSync([owner.toBuffer(), TOKEN_PROGRAM_ID.toBuffer(), mint.toBuffer()], ASSOCIATED_TOKEN_PROGRAM_ID)[0];
}
