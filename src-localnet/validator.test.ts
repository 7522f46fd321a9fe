/**
 * The local validator through an unmodified web3.js Connection: transactions
 * land for real in LiteSVM (signatures, blockhash window, duplicates, fees
 * also on failure, the real System, Memo, SPL Token and Associated Token
 * programs), history and transaction shapes are what web3.js parses, and the
 * websocket subscriptions confirm transactions.
 */
import {
  AddressLookupTableAccount,
  ComputeBudgetProgram,
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  SendTransactionError,
  SystemProgram,
  Transaction,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
  sendAndConfirmTransaction,
} from "@solana/web3.js";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  associatedTokenAddress,
  BPF_LOADER_UPGRADEABLE_ID,
  decodeTreeAccount,
  DEFAULT_POOL_PROGRAM_ID,
  initializePoolInstructions,
  NATIVE_MINT,
  POOL_ERRORS,
  poolTreeAddress,
  programDataAddress,
  TOKEN_PROGRAM_ID,
  TREE_ACCOUNT_SIZE,
} from "../src-shared/pool-program";
import { MEMO_PROGRAM_ID, memoInstruction, rpc, sleep, until } from "../tests/support/localnet-rpc";
import { CP_SWAP_SO, POOL_SO } from "./programs";
import { startLocalValidator, type LocalValidator } from "./validator";

let v: LocalValidator;
let conn: Connection;
let payer: Keypair;

beforeAll(async () => {
  v = await startLocalValidator({ port: 0, slotMs: 20 });
  conn = new Connection(v.rpcUrl, { commitment: "confirmed", wsEndpoint: v.wsUrl });
  payer = Keypair.generate();
  await v.airdrop(payer.publicKey.toBase58(), 10 * LAMPORTS_PER_SOL);
});

afterAll(async () => {
  await v?.close();
});

async function signed(instructions: TransactionInstruction[], signers: Keypair[] = [payer]) {
  const { blockhash, lastValidBlockHeight } = await conn.getLatestBlockhash();
  const tx = new Transaction({ feePayer: signers[0]!.publicKey, blockhash, lastValidBlockHeight }).add(...instructions);
  tx.sign(...signers);
  return { tx, wire: tx.serialize(), blockhash, lastValidBlockHeight };
}

async function sendAndConfirm(instructions: TransactionInstruction[], signers: Keypair[] = [payer], skipPreflight = false) {
  const s = await signed(instructions, signers);
  const signature = await conn.sendRawTransaction(s.wire, { skipPreflight });
  // web3.js resolves with the error from the notification, but rejects with it when its first status poll sees it.
  const err = await conn.confirmTransaction({ signature, blockhash: s.blockhash, lastValidBlockHeight: s.lastValidBlockHeight }).then(
    (res) => res.value.err,
    (e: unknown) => {
      if (e && typeof e === "object" && !(e instanceof Error)) return e;
      throw e;
    },
  );
  return { signature, err, ...s };
}

const transfer = (to: PublicKey, lamports: number, from = payer.publicKey) => SystemProgram.transfer({ fromPubkey: from, toPubkey: to, lamports });

async function sendError(p: Promise<unknown>): Promise<SendTransactionError> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(SendTransactionError);
  return e as SendTransactionError;
}

describe("transactions", () => {
  it("lands a SystemProgram.transfer through sendAndConfirmTransaction, charging 5000 lamports", async () => {
    const to = Keypair.generate().publicKey;
    const before = await conn.getBalance(payer.publicKey);
    const sig = await sendAndConfirmTransaction(conn, new Transaction().add(transfer(to, 1_000_000)), [payer]);
    expect(await conn.getBalance(to)).toBe(1_000_000);
    expect(await conn.getBalance(payer.publicKey)).toBe(before - 1_000_000 - 5000);
    const tx = await conn.getTransaction(sig, { maxSupportedTransactionVersion: 0 });
    expect(tx?.meta?.err).toBeNull();
    expect(tx?.meta?.fee).toBe(5000);
    expect(tx?.version).toBe("legacy");
    expect(tx?.meta?.logMessages).toEqual(["Program 11111111111111111111111111111111 invoke [1]", "Program 11111111111111111111111111111111 success"]);
    expect(tx?.transaction.signatures[0]).toBe(sig);
    expect(tx!.meta!.preBalances[0]! - tx!.meta!.postBalances[0]!).toBe(1_005_000);
  });

  it("returns a program's logs in the real format through getTransaction, for legacy and v0 transactions", async () => {
    const { signature } = await sendAndConfirm([memoInstruction("hello from the test")]);
    const tx = await conn.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    const logs = tx?.meta?.logMessages ?? [];
    expect(logs[0]).toBe(`Program ${MEMO_PROGRAM_ID} invoke [1]`);
    expect(logs.some((l) => l.startsWith("Program log: ") && l.includes("hello from the test"))).toBe(true);
    const consumed = /^Program \S+ consumed (\d+) of 200000 compute units$/.exec(logs.at(-2) ?? "");
    expect(consumed).not.toBeNull();
    expect(logs.at(-1)).toBe(`Program ${MEMO_PROGRAM_ID} success`);
    expect(tx?.meta?.computeUnitsConsumed).toBe(Number(consumed![1]));

    const { blockhash, lastValidBlockHeight } = await conn.getLatestBlockhash();
    const msg = new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: blockhash,
      instructions: [memoInstruction("hello from the test")],
    }).compileToV0Message();
    const vtx = new VersionedTransaction(msg);
    vtx.sign([payer]);
    const sig0 = await conn.sendTransaction(vtx);
    await conn.confirmTransaction({ signature: sig0, blockhash, lastValidBlockHeight });
    const got = await conn.getTransaction(sig0, { maxSupportedTransactionVersion: 0 });
    expect(got?.version).toBe(0);
    expect(got?.meta?.logMessages?.some((l) => l.includes("hello from the test"))).toBe(true);
    // A client that does not declare v0 support is refused, as by a real node.
    const legacyOnly = await rpc(v.rpcUrl, "getTransaction", [sig0, { encoding: "json", commitment: "confirmed" }]);
    expect(legacyOnly.body.error.code).toBe(-32015);
  });

  it("resolves address lookup tables in v0 transactions (loadedAddresses) and answers getParsedTransaction", async () => {
    const table = Keypair.generate().publicKey;
    const loaded = [Keypair.generate().publicKey, Keypair.generate().publicKey];
    const data = Buffer.alloc(56 + 32 * loaded.length);
    data.writeUInt32LE(1, 0); // LookupTable
    data.writeBigUInt64LE(0xffffffffffffffffn, 4); // not deactivated
    loaded.forEach((k, i) => k.toBuffer().copy(data, 56 + 32 * i));
    v.ledger.setAccount(table.toBase58(), {
      lamports: 10_000_000n,
      owner: "AddressLookupTab1e1111111111111111111111111",
      data: new Uint8Array(data),
      executable: false,
    });
    const lookup = new AddressLookupTableAccount({
      key: table,
      state: { deactivationSlot: BigInt("0xffffffffffffffff"), lastExtendedSlot: 0, lastExtendedSlotStartIndex: 0, addresses: loaded },
    });
    const { blockhash, lastValidBlockHeight } = await conn.getLatestBlockhash();
    const msg = new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: blockhash,
      instructions: [transfer(loaded[1]!, 1_000_000)],
    }).compileToV0Message([lookup]);
    expect(msg.addressTableLookups).toHaveLength(1);
    const vtx = new VersionedTransaction(msg);
    vtx.sign([payer]);
    const sig = await conn.sendTransaction(vtx);
    expect((await conn.confirmTransaction({ signature: sig, blockhash, lastValidBlockHeight })).value.err).toBeNull();
    expect(await conn.getBalance(loaded[1]!)).toBe(1_000_000);
    const got = await conn.getTransaction(sig, { maxSupportedTransactionVersion: 0 });
    expect(got?.meta?.loadedAddresses?.writable.map((k) => k.toBase58())).toEqual([loaded[1]!.toBase58()]);
    expect(got?.meta?.postBalances).toHaveLength(3);
    const parsed = await conn.getParsedTransaction(sig, { maxSupportedTransactionVersion: 0 });
    expect(parsed?.meta?.logMessages?.[0]).toBe("Program 11111111111111111111111111111111 invoke [1]");
    expect(parsed?.transaction.message.accountKeys[0]).toMatchObject({ signer: true, writable: true });
  });

  it("refuses a transaction with a bad signature (preflight), and never lands it when preflight is skipped", async () => {
    const { wire } = await signed([transfer(Keypair.generate().publicKey, 1_000_000)]);
    const bad = Buffer.from(wire);
    bad[1 + 10]! ^= 0xff; // inside the first signature
    const e = await sendError(conn.sendRawTransaction(bad));
    expect(e.message).toContain("signature verification failure");
    const sig = await conn.sendRawTransaction(bad, { skipPreflight: true });
    await v.ledger.idle();
    await sleep(100);
    expect((await conn.getSignatureStatus(sig, { searchTransactionHistory: true })).value).toBeNull();
  });

  it("refuses an unknown or expired blockhash with BlockhashNotFound", async () => {
    const stale = await signed([transfer(Keypair.generate().publicKey, 1_000_000)]);
    v.advanceSlots(151);
    expect(await conn.isBlockhashValid(stale.blockhash)).toMatchObject({ value: false });
    const e = await sendError(conn.sendRawTransaction(stale.wire));
    expect(e.message).toContain("Blockhash not found");
    const sim = await rpc(v.rpcUrl, "sendTransaction", [stale.wire.toString("base64"), { encoding: "base64" }]);
    expect(sim.body.error).toMatchObject({ code: -32002, message: "Transaction simulation failed: Blockhash not found", data: { err: "BlockhashNotFound" } });

    const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: Keypair.generate().publicKey.toBase58() }).add(transfer(payer.publicKey, 1));
    tx.sign(payer);
    expect((await sendError(conn.sendRawTransaction(tx.serialize()))).message).toContain("Blockhash not found");
  });

  it("refuses a duplicate with AlreadyProcessed", async () => {
    const { wire } = await sendAndConfirm([transfer(Keypair.generate().publicKey, 1_000_000)]);
    const e = await sendError(conn.sendRawTransaction(wire));
    expect(e.message).toContain("This transaction has already been processed");
  });

  it("refuses a fee payer that cannot pay: AccountNotFound, InsufficientFundsForFee", async () => {
    const nobody = Keypair.generate();
    const r1 = await rpc(v.rpcUrl, "sendTransaction", [
      (await signed([transfer(payer.publicKey, 1, nobody.publicKey)], [nobody])).wire.toString("base64"),
      { encoding: "base64" },
    ]);
    expect(r1.body.error.data.err).toBe("AccountNotFound");
    const poor = Keypair.generate();
    v.ledger.setAccount(poor.publicKey.toBase58(), { lamports: 4999n, owner: "11111111111111111111111111111111", data: new Uint8Array(0), executable: false });
    const r2 = await rpc(v.rpcUrl, "sendTransaction", [
      (await signed([transfer(payer.publicKey, 1, poor.publicKey)], [poor])).wire.toString("base64"),
      { encoding: "base64" },
    ]);
    expect(r2.body.error).toMatchObject({
      code: -32002,
      message: "Transaction simulation failed: Insufficient funds for fee",
      data: { err: "InsufficientFundsForFee" },
    });
  });

  it("charges the fee (base + priority) on a failed transaction and keeps nothing else of it", async () => {
    const target = Keypair.generate();
    const before = await conn.getBalance(payer.publicKey);
    const ixs = [
      ComputeBudgetProgram.setComputeUnitLimit({ units: 300_000 }),
      ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 10_000 }),
      transfer(target.publicKey, 1_000_000),
      transfer(target.publicKey, 1_000 * LAMPORTS_PER_SOL),
    ];
    // Preflight refuses it with the program's logs…
    const e = await sendError(conn.sendRawTransaction((await signed(ixs)).wire));
    expect(e.message).toContain("Error processing Instruction 3: custom program error: 0x1");
    expect(e.logs).toContain("Program 11111111111111111111111111111111 failed: custom program error: 0x1");
    expect(await conn.getBalance(payer.publicKey)).toBe(before);
    // …skipping preflight it lands, failed, and costs its fee only.
    const { signature, err } = await sendAndConfirm(ixs, [payer], true);
    expect(err).toEqual({ InstructionError: [3, { Custom: 1 }] });
    const fee = 5000 + Math.ceil((10_000 * 300_000) / 1e6);
    expect(await conn.getBalance(payer.publicKey)).toBe(before - fee);
    expect(await conn.getAccountInfo(target.publicKey)).toBeNull();
    const tx = await until("confirmed", () => conn.getTransaction(signature, { maxSupportedTransactionVersion: 0 }));
    expect(tx?.meta?.fee).toBe(fee);
    expect(tx?.meta?.logMessages).toEqual([
      "Program ComputeBudget111111111111111111111111111111 invoke [1]",
      "Program ComputeBudget111111111111111111111111111111 success",
      "Program ComputeBudget111111111111111111111111111111 invoke [1]",
      "Program ComputeBudget111111111111111111111111111111 success",
      "Program 11111111111111111111111111111111 invoke [1]",
      "Program 11111111111111111111111111111111 success",
      "Program 11111111111111111111111111111111 invoke [1]",
      expect.stringMatching(/^Transfer: insufficient lamports \d+, need 1000000000000$/),
      "Program 11111111111111111111111111111111 failed: custom program error: 0x1",
    ]);
    expect(tx!.meta!.preBalances[0]! - tx!.meta!.postBalances[0]!).toBe(fee);
    const sigs = await conn.getSignaturesForAddress(payer.publicKey, { limit: 1 });
    expect(sigs[0]).toMatchObject({ signature, err: { InstructionError: [3, { Custom: 1 }] } });
    expect((await conn.getRecentPrioritizationFees({ lockedWritableAccounts: [payer.publicKey] })).some((f) => f.prioritizationFee === 10_000)).toBe(true);
  });

  it("runs out of compute units as the runtime does, and enforces writable flags", async () => {
    const { err, signature } = await sendAndConfirm(
      [ComputeBudgetProgram.setComputeUnitLimit({ units: 500 }), memoInstruction("x".repeat(500))],
      [payer],
      true,
    );
    expect(err).toEqual({ InstructionError: [1, "ComputationalBudgetExceeded"] });
    const logs = (await until("confirmed", () => conn.getTransaction(signature, { maxSupportedTransactionVersion: 0 }))).meta?.logMessages;
    expect(logs?.slice(-2)).toEqual([
      `Program ${MEMO_PROGRAM_ID} consumed 350 of 350 compute units`,
      `Program ${MEMO_PROGRAM_ID} failed: Computational budget exceeded`,
    ]);

    const target = Keypair.generate().publicKey;
    const ix = transfer(target, 1_000_000);
    ix.keys[1]!.isWritable = false;
    const readonly = await sendAndConfirm([ix], [payer], true);
    expect(readonly.err).toEqual({ InstructionError: [0, "ReadonlyLamportChange"] });
  });

  it("simulates without changing anything (replaceRecentBlockhash, accounts)", async () => {
    const target = Keypair.generate();
    const space = 2;
    const { tx } = await signed(
      [
        SystemProgram.createAccount({
          fromPubkey: payer.publicKey,
          newAccountPubkey: target.publicKey,
          lamports: await conn.getMinimumBalanceForRentExemption(space),
          space,
          programId: new PublicKey(MEMO_PROGRAM_ID),
        }),
      ],
      [payer, target],
    );
    const vtx = new VersionedTransaction(tx.compileMessage());
    vtx.sign([payer, target]);
    const sim = await conn.simulateTransaction(vtx, {
      replaceRecentBlockhash: true,
      accounts: { encoding: "base64", addresses: [target.publicKey.toBase58()] },
    });
    expect(sim.value.err).toBeNull();
    expect(sim.value.unitsConsumed).toBe(150);
    expect(sim.value.accounts?.[0]).toMatchObject({ owner: MEMO_PROGRAM_ID, data: [Buffer.alloc(space).toString("base64"), "base64"] });
    expect(await conn.getAccountInfo(target.publicKey)).toBeNull();
    // Without sigVerify an unsigned transaction simulates; with it, it is refused.
    const unsigned = new Transaction({ feePayer: payer.publicKey, recentBlockhash: tx.recentBlockhash }).add(transfer(target.publicKey, 1_000_000));
    const raw = unsigned.serialize({ requireAllSignatures: false, verifySignatures: false }).toString("base64");
    expect((await rpc(v.rpcUrl, "simulateTransaction", [raw, { encoding: "base64" }])).body.result.value.err).toBeNull();
    const forged = tx.serialize();
    forged[5]! ^= 1;
    const withSig = await rpc(v.rpcUrl, "simulateTransaction", [forged.toString("base64"), { encoding: "base64", sigVerify: true }]);
    expect(withSig.body.error.code).toBe(-32003);
  });
});

describe("history and state", () => {
  it("pages getSignaturesForAddress newest first with before and until", async () => {
    const from = Keypair.generate();
    await v.airdrop(from.publicKey.toBase58(), LAMPORTS_PER_SOL);
    const sigs: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { wire } = await signed([transfer(Keypair.generate().publicKey, 1_000_000 + i, from.publicKey)], [from]);
      sigs.push(await conn.sendRawTransaction(wire));
    }
    await v.ledger.idle();
    await until("confirmed", async () => (await conn.getSignaturesForAddress(from.publicKey)).length === 6);
    const all = (await conn.getSignaturesForAddress(from.publicKey)).map((s) => s.signature);
    expect(all.slice(0, 5)).toEqual([...sigs].reverse());
    const page1 = await conn.getSignaturesForAddress(from.publicKey, { limit: 2 });
    expect(page1.map((s) => s.signature)).toEqual([sigs[4], sigs[3]]);
    expect(page1[0]).toMatchObject({ err: null, memo: null, confirmationStatus: expect.stringMatching(/confirmed|finalized/) });
    expect(typeof page1[0]!.blockTime).toBe("number");
    const page2 = await conn.getSignaturesForAddress(from.publicKey, { limit: 2, before: page1[1]!.signature });
    expect(page2.map((s) => s.signature)).toEqual([sigs[2], sigs[1]]);
    const between = await conn.getSignaturesForAddress(from.publicKey, { before: sigs[4], until: sigs[1] });
    expect(between.map((s) => s.signature)).toEqual([sigs[3], sigs[2]]);
    // The default commitment (finalized) sees them only 32 slots later.
    const finalizedNow = await rpc(v.rpcUrl, "getSignaturesForAddress", [from.publicKey.toBase58(), {}]);
    expect(Array.isArray(finalizedNow.body.result)).toBe(true);
    await until("finalized", async () => (await rpc(v.rpcUrl, "getSignaturesForAddress", [from.publicKey.toBase58(), {}])).body.result.length === 6);
  });

  it("confirms through signatureSubscribe at confirmed and finalized, and streams logs", async () => {
    const seen: string[] = [];
    const sub = conn.onLogs(new PublicKey(MEMO_PROGRAM_ID), (l) => seen.push(l.signature), "confirmed");
    await sleep(100); // the subscription is set up
    const s = await signed([memoInstruction("logs")]);
    const signature = await conn.sendRawTransaction(s.wire);
    const confirmed = await conn.confirmTransaction({ signature, blockhash: s.blockhash, lastValidBlockHeight: s.lastValidBlockHeight }, "confirmed");
    expect(confirmed.value.err).toBeNull();
    const finalized = await conn.confirmTransaction({ signature, blockhash: s.blockhash, lastValidBlockHeight: s.lastValidBlockHeight }, "finalized");
    expect(finalized.value.err).toBeNull();
    const status = await conn.getSignatureStatus(signature);
    expect(status.value?.confirmationStatus).toBe("finalized");
    await until("logs notification", () => seen.includes(signature));
    await conn.removeOnLogsListener(sub);
  });

  it("notifies account changes (accountSubscribe, programSubscribe)", async () => {
    const watched = Keypair.generate().publicKey;
    const seen: number[] = [];
    const owned: string[] = [];
    const sub = conn.onAccountChange(watched, (info) => seen.push(info.lamports), "confirmed");
    const owner = Keypair.generate().publicKey;
    const progSub = conn.onProgramAccountChange(owner, (k) => owned.push(k.accountId.toBase58()), { commitment: "confirmed", filters: [{ dataSize: 3 }] });
    await sleep(100);
    await sendAndConfirm([transfer(watched, 3_000_000)]);
    await until("account notification", () => seen.includes(3_000_000));
    const target = Keypair.generate();
    const create = SystemProgram.createAccount({
      fromPubkey: payer.publicKey,
      newAccountPubkey: target.publicKey,
      lamports: await conn.getMinimumBalanceForRentExemption(3),
      space: 3,
      programId: owner,
    });
    await sendAndConfirm([create], [payer, target]);
    await until("program notification", () => owned.includes(target.publicKey.toBase58()));
    await conn.removeAccountChangeListener(sub);
    await conn.removeProgramAccountChangeListener(progSub);
  });

  it("answers account, token and cluster queries in web3.js's shapes", async () => {
    const owner = Keypair.generate().publicKey.toBase58();
    const mint = Keypair.generate().publicKey.toBase58();
    const ata = await v.mintTo(owner, mint, 1_500_000n);
    expect(ata).toBe(associatedTokenAddress(owner, mint));
    expect((await conn.getTokenAccountBalance(new PublicKey(ata))).value).toEqual({ amount: "1500000", decimals: 6, uiAmount: 1.5, uiAmountString: "1.5" });
    const viaRpc = await rpc(v.rpcUrl, "localnet_mintTo", { owner, mint: NATIVE_MINT, amount: "2500000000" });
    expect((await conn.getTokenAccountBalance(new PublicKey(viaRpc.body.result.tokenAccount))).value).toMatchObject({
      amount: "2500000000",
      decimals: 9,
      uiAmountString: "2.5",
    });

    const info = await conn.getAccountInfo(new PublicKey(ata));
    expect(info?.owner.toBase58()).toBe("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
    expect(info?.data.length).toBe(165);
    expect(info?.lamports).toBe(await conn.getMinimumBalanceForRentExemption(165));
    const multi = await conn.getMultipleAccountsInfo([new PublicKey(ata), Keypair.generate().publicKey]);
    expect(multi[0]?.data.length).toBe(165);
    expect(multi[1]).toBeNull();

    const tokenProgram = new PublicKey("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
    const byOwner = await conn.getProgramAccounts(tokenProgram, { filters: [{ dataSize: 165 }, { memcmp: { offset: 32, bytes: owner } }] });
    expect(byOwner.map((a) => a.pubkey.toBase58()).sort()).toEqual([ata, viaRpc.body.result.tokenAccount].sort());
    const byMint = await conn.getProgramAccounts(tokenProgram, { withContext: true, filters: [{ memcmp: { offset: 0, bytes: mint } }, { dataSize: 165 }] });
    expect(byMint.value.map((a) => a.pubkey.toBase58())).toEqual([ata]);

    expect(await conn.getGenesisHash()).toBe(v.ledger.genesisHash);
    expect((await conn.getVersion())["solana-core"]).toMatch(/^\d+\.\d+\.\d+$/);
    const epoch = await conn.getEpochInfo();
    expect(epoch.absoluteSlot).toBeGreaterThan(0);
    expect(await conn.getBlockHeight()).toBeGreaterThanOrEqual(epoch.blockHeight!);
    const { blockhash } = await conn.getLatestBlockhash();
    const message = new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: blockhash,
      instructions: [ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1_000_000 }), memoInstruction("fee")],
    }).compileToV0Message();
    // The default unit limit: 200 000 for the memo program's instruction, 3 000 for the compute budget's (a builtin).
    expect((await conn.getFeeForMessage(message)).value).toBe(5000 + 203_000);
    expect((await rpc(v.rpcUrl, "getHealth")).body.result).toBe("ok");

    const sig = await conn.requestAirdrop(new PublicKey(owner), 2 * LAMPORTS_PER_SOL);
    expect(await conn.getBalance(new PublicKey(owner))).toBe(2 * LAMPORTS_PER_SOL);
    const airdropTx = await until("airdrop confirmed", () => conn.getTransaction(sig, { maxSupportedTransactionVersion: 0 }));
    expect(airdropTx?.transaction.message.staticAccountKeys[0]?.toBase58()).toBe(v.faucet.publicKey.toBase58());
  });

  it("answers batch requests", async () => {
    const res = await fetch(v.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify([
        { jsonrpc: "2.0", id: "a", method: "getSlot" },
        { jsonrpc: "2.0", id: "b", method: "nope" },
        { jsonrpc: "2.0", id: "c", method: "getBalance", params: [payer.publicKey.toBase58()] },
      ]),
    });
    const body = (await res.json()) as any[];
    expect(body.map((b) => b.id)).toEqual(["a", "b", "c"]);
    expect(typeof body[0].result).toBe("number");
    expect(body[1].error.code).toBe(-32601);
    expect(body[2].result.value).toBeGreaterThan(0);
    expect(body[2].result.context.slot).toBeGreaterThan(0);
  });

  it("snapshots and restores the ledger", async () => {
    const to = Keypair.generate().publicKey;
    const snap = await v.snapshot();
    const json = JSON.stringify(snap);
    // The SVM's whole state travels gzipped: well within localnet_restore's request limit.
    expect(json.length).toBeLessThan(1_500_000);
    const { signature } = await sendAndConfirm([transfer(to, 2_000_000)]);
    expect(await conn.getBalance(to)).toBe(2_000_000);
    await v.restore(JSON.parse(json));
    expect(await conn.getBalance(to)).toBe(0);
    expect((await conn.getSignatureStatus(signature, { searchTransactionHistory: true })).value).toBeNull();
    // The clock went back too: blockhashes of the snapshot are valid again, new ones are produced.
    await sendAndConfirm([transfer(to, 1_000_000)]);
    expect(await conn.getBalance(to)).toBe(1_000_000);
    // SBF programs run after a restore (the pool program, the memo program).
    expect((await sendAndConfirm([memoInstruction("restored")])).err).toBeNull();
    const pool = await conn.getAccountInfo(new PublicKey(DEFAULT_POOL_PROGRAM_ID));
    expect(pool?.executable).toBe(true);
    const viaRpc = await rpc(v.rpcUrl, "localnet_snapshot");
    expect((await rpc(v.rpcUrl, "localnet_restore", viaRpc.body.result)).body.result.slot).toBe(viaRpc.body.result.slot);
  });

  it("expires a blockhash on request: block height passes its last valid height", async () => {
    const s = await signed([transfer(Keypair.generate().publicKey, 1_000_000)]);
    expect(await conn.isBlockhashValid(s.blockhash)).toMatchObject({ value: true });
    v.expireBlockhash(s.blockhash);
    expect(await conn.getBlockHeight()).toBeGreaterThan(s.lastValidBlockHeight);
    expect(await conn.isBlockhashValid(s.blockhash)).toMatchObject({ value: false });
    expect((await sendError(conn.sendRawTransaction(s.wire))).message).toContain("Blockhash not found");
    v.expireBlockhash(s.blockhash); // already expired: nothing happens
  });
});

describe("the runtime: LiteSVM with the real SPL Token and Associated Token programs", () => {
  const TOKEN = new PublicKey(TOKEN_PROGRAM_ID);
  const ATA_PROGRAM = new PublicKey(ASSOCIATED_TOKEN_PROGRAM_ID);

  /** CreateIdempotent (tag 1): payer, associated account, wallet, mint, system program, token program. */
  const createAta = (owner: PublicKey, mint: PublicKey) =>
    new TransactionInstruction({
      programId: ATA_PROGRAM,
      keys: [
        { pubkey: payer.publicKey, isSigner: true, isWritable: true },
        { pubkey: new PublicKey(associatedTokenAddress(owner.toBase58(), mint.toBase58())), isSigner: false, isWritable: true },
        { pubkey: owner, isSigner: false, isWritable: false },
        { pubkey: mint, isSigner: false, isWritable: false },
        { pubkey: SystemProgram.programId, isSigner: false, isWritable: false },
        { pubkey: TOKEN, isSigner: false, isWritable: false },
      ],
      data: Buffer.from([1]),
    });

  /** TransferChecked (tag 12): source, mint, destination, owner. */
  const transferChecked = (source: string, mint: PublicKey, destination: string, owner: PublicKey, amount: bigint, decimals: number) => {
    const data = Buffer.alloc(10);
    data[0] = 12;
    data.writeBigUInt64LE(amount, 1);
    data[9] = decimals;
    return new TransactionInstruction({
      programId: TOKEN,
      keys: [
        { pubkey: new PublicKey(source), isSigner: false, isWritable: true },
        { pubkey: mint, isSigner: false, isWritable: false },
        { pubkey: new PublicKey(destination), isSigner: false, isWritable: true },
        { pubkey: owner, isSigner: true, isWritable: false },
      ],
      data,
    });
  };

  it("creates an associated token account and moves tokens with TransferChecked; the record has inner instructions and token balances", async () => {
    const mint = Keypair.generate().publicKey;
    const alice = Keypair.generate();
    const bob = Keypair.generate().publicKey;
    expect(await v.createMint(mint.toBase58(), 6)).toBe(6);
    const from = await v.mintTo(alice.publicKey.toBase58(), mint.toBase58(), 5_000_000n);
    const to = associatedTokenAddress(bob.toBase58(), mint.toBase58());
    const { signature, err } = await sendAndConfirm([createAta(bob, mint), transferChecked(from, mint, to, alice.publicKey, 1_250_000n, 6)], [payer, alice]);
    expect(err).toBeNull();
    expect((await conn.getTokenAccountBalance(new PublicKey(to))).value.amount).toBe("1250000");
    expect((await conn.getTokenAccountBalance(new PublicKey(from))).value.amount).toBe("3750000");
    const tx = await until("confirmed", () => conn.getTransaction(signature, { maxSupportedTransactionVersion: 0 }));
    // The ATA program's CPIs: system (create the account) and token (initialize it).
    const inner = tx.meta?.innerInstructions?.find((i) => i.index === 0)?.instructions ?? [];
    const keys = tx.transaction.message.staticAccountKeys.map((k) => k.toBase58());
    expect(inner.map((ix) => keys[ix.programIdIndex])).toContain(TOKEN_PROGRAM_ID);
    expect(inner.map((ix) => keys[ix.programIdIndex])).toContain(SystemProgram.programId.toBase58());
    expect(tx.meta?.logMessages).toContain(`Program ${TOKEN_PROGRAM_ID} invoke [2]`);
    const post = (address: string) => tx.meta?.postTokenBalances?.find((b) => keys[b.accountIndex] === address)?.uiTokenAmount.amount;
    expect(post(to)).toBe("1250000");
    expect(post(from)).toBe("3750000");
    expect(tx.meta?.preTokenBalances?.find((b) => keys[b.accountIndex] === from)?.uiTokenAmount.amount).toBe("5000000");
    // Wrong decimals: the token program's MintDecimalsMismatch (custom 18).
    const bad = await sendAndConfirm([transferChecked(from, mint, to, alice.publicKey, 1n, 9)], [payer, alice], true);
    expect(bad.err).toEqual({ InstructionError: [0, { Custom: 18 }] });
    // A signer who does not own the source: the token program's OwnerMismatch.
    const stranger = Keypair.generate();
    const unsigned = await sendAndConfirm([transferChecked(from, mint, to, stranger.publicKey, 1n, 6)], [payer, stranger], true);
    expect(unsigned.err).toEqual({ InstructionError: [0, { Custom: 4 }] }); // OwnerMismatch
  });

  it("credits wrapped SOL as native token accounts (lamports = rent + amount) that the token program moves", async () => {
    const alice = Keypair.generate();
    await v.airdrop(alice.publicKey.toBase58(), LAMPORTS_PER_SOL);
    const bob = Keypair.generate().publicKey;
    const native = new PublicKey(NATIVE_MINT);
    const from = await v.mintTo(alice.publicKey.toBase58(), NATIVE_MINT, 2_000_000_000n);
    const rent = await conn.getMinimumBalanceForRentExemption(165);
    expect((await conn.getAccountInfo(new PublicKey(from)))?.lamports).toBe(rent + 2_000_000_000);
    const to = associatedTokenAddress(bob.toBase58(), NATIVE_MINT);
    expect(
      (await sendAndConfirm([createAta(bob, native), transferChecked(from, native, to, alice.publicKey, 500_000_000n, 9)], [payer, alice])).err,
    ).toBeNull();
    expect((await conn.getTokenAccountBalance(new PublicKey(to))).value).toMatchObject({ amount: "500000000", decimals: 9 });
    expect((await conn.getAccountInfo(new PublicKey(to)))?.lamports).toBe(rent + 500_000_000);
    expect((await conn.getAccountInfo(new PublicKey(from)))?.lamports).toBe(rent + 1_500_000_000);
  });

  it("charges the fee getFeeForMessage announces, priority included", async () => {
    const { blockhash } = await conn.getLatestBlockhash();
    const ixs = [
      ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 777_777 }),
      transfer(Keypair.generate().publicKey, 1_000_000),
      memoInstruction("fee"),
    ];
    const message = new TransactionMessage({ payerKey: payer.publicKey, recentBlockhash: blockhash, instructions: ixs }).compileToV0Message();
    const announced = (await conn.getFeeForMessage(message)).value!;
    expect(announced).toBe(5000 + Math.ceil((777_777 * (3_000 + 3_000 + 200_000)) / 1e6));
    const before = await conn.getBalance(payer.publicKey);
    const { signature } = await sendAndConfirm(ixs);
    expect(await conn.getBalance(payer.publicKey)).toBe(before - 1_000_000 - announced);
    expect((await conn.getTransaction(signature, { maxSupportedTransactionVersion: 0 }))?.meta?.fee).toBe(announced);
  });

  it("keeps the clock sysvar at the ledger's slot", async () => {
    await sendAndConfirm([memoInstruction("tick")]);
    const slot = v.ledger.slot;
    const clock = await conn.getAccountInfo(new PublicKey("SysvarC1ock11111111111111111111111111111111"));
    const landedAt = Number(clock!.data.readBigUInt64LE(0));
    expect(landedAt).toBeLessThanOrEqual(slot);
    expect(landedAt).toBeGreaterThan(slot - 20);
  });

  it("resolves a swap pool's lookup table from slot 0 on", async () => {
    const v0 = await startLocalValidator({ port: 0, slotMs: 600_000 });
    try {
      expect(v0.ledger.slot).toBe(0);
      const c0 = new Connection(v0.rpcUrl, { commitment: "processed", wsEndpoint: v0.wsUrl });
      const kp = Keypair.generate();
      await v0.airdrop(kp.publicKey.toBase58(), LAMPORTS_PER_SOL);
      const pool = await v0.createSwapPool(Keypair.generate().publicKey.toBase58(), NATIVE_MINT, 1_000_000n, 1_000_000n);
      const table = (await c0.getAddressLookupTable(new PublicKey(pool.lookupTable))).value!;
      const { blockhash } = await c0.getLatestBlockhash();
      const msg = new TransactionMessage({
        payerKey: kp.publicKey,
        recentBlockhash: blockhash,
        instructions: [transfer(new PublicKey(pool.vaultB), 1_000, kp.publicKey)],
      }).compileToV0Message([table]);
      expect(msg.addressTableLookups).toHaveLength(1);
      const vtx = new VersionedTransaction(msg);
      vtx.sign([kp]);
      const sig = await c0.sendTransaction(vtx);
      await v0.ledger.idle();
      expect(v0.ledger.getTransaction(sig)?.err).toBeNull();
      expect(v0.ledger.slot).toBe(0);
    } finally {
      await v0.close();
    }
  });

  it("drops a transaction that cannot pay or invokes no program, charging nothing", async () => {
    const before = await conn.getBalance(payer.publicKey);
    const ghost = new TransactionInstruction({ programId: Keypair.generate().publicKey, keys: [], data: Buffer.from([1]) });
    const sig = await conn.sendRawTransaction((await signed([ghost])).wire, { skipPreflight: true });
    await v.ledger.idle();
    await sleep(60);
    expect((await conn.getSignatureStatus(sig, { searchTransactionHistory: true })).value).toBeNull();
    expect(await conn.getBalance(payer.publicKey)).toBe(before);
  });
});

describe("the pool program deployed upgradeable (issue 25: its upgrade authority alone opens pools)", () => {
  const open = (authority: Keypair, mint: string) =>
    sendAndConfirm(
      initializePoolInstructions({ programId: DEFAULT_POOL_PROGRAM_ID, authority: authority.publicKey.toBase58(), mint, minDeposit: 10_000_000n }),
      [authority],
      // Land a refused initialize too, so its error is the transaction's (preflight would throw it instead).
      true,
    );

  it("has no upgrade authority as LiteSVM deploys it, so nobody can open a pool; the one it is given opens one and no other key can", async () => {
    const mint = Keypair.generate().publicKey.toBase58();
    await v.createMint(mint);
    const owner = Keypair.generate();
    const stranger = Keypair.generate();
    for (const k of [owner, stranger]) await v.airdrop(k.publicKey.toBase58(), LAMPORTS_PER_SOL);
    expect(v.upgradeAuthority()).toBeNull();
    expect((await open(owner, mint)).err).toEqual({ InstructionError: [0, { Custom: POOL_ERRORS.NotAuthority }] });

    await v.setUpgradeAuthority(owner.publicKey.toBase58());
    expect(v.upgradeAuthority()).toBe(owner.publicKey.toBase58());
    // The header as the upgradeable loader writes it: ProgramData (3), an authority (1 @12), its key @13..45; the ELF after it untouched.
    const pd = await conn.getAccountInfo(new PublicKey(programDataAddress(DEFAULT_POOL_PROGRAM_ID)));
    expect(pd?.owner.toBase58()).toBe(BPF_LOADER_UPGRADEABLE_ID);
    expect(pd!.data.readUInt32LE(0)).toBe(3);
    expect(pd!.data[12]).toBe(1);
    expect(new PublicKey(pd!.data.subarray(13, 45)).toBase58()).toBe(owner.publicKey.toBase58());
    expect(pd!.data.subarray(45, 49).toString("latin1")).toBe("\x7fELF");

    expect((await open(stranger, mint)).err).toEqual({ InstructionError: [0, { Custom: POOL_ERRORS.NotAuthority }] });
    expect((await open(owner, mint)).err).toBeNull();
    const tree = await conn.getAccountInfo(new PublicKey(poolTreeAddress(DEFAULT_POOL_PROGRAM_ID, mint)));
    expect(tree?.data.length).toBe(TREE_ACCOUNT_SIZE);
    const decoded = decodeTreeAccount(tree!.data);
    expect(decoded.ok && [new PublicKey(decoded.value.authority).toBase58(), decoded.value.minDeposit]).toEqual([owner.publicKey.toBase58(), 10_000_000n]);
  });

  it("drops the upgrade authority on request (an immutable program): then no key can open a pool", async () => {
    const owner = Keypair.generate();
    await v.airdrop(owner.publicKey.toBase58(), LAMPORTS_PER_SOL);
    await v.setUpgradeAuthority(owner.publicKey.toBase58());
    await v.setUpgradeAuthority(null);
    expect(v.upgradeAuthority()).toBeNull();
    const mint = Keypair.generate().publicKey.toBase58();
    await v.createMint(mint);
    expect((await open(owner, mint)).err).toEqual({ InstructionError: [0, { Custom: POOL_ERRORS.NotAuthority }] });
  });

  it("deploys another binary at the program id as an upgrade does: new ELF and slot in ProgramData, authority kept, the runtime runs it", async () => {
    const owner = Keypair.generate();
    await v.airdrop(owner.publicKey.toBase58(), LAMPORTS_PER_SOL);
    await v.setUpgradeAuthority(owner.publicKey.toBase58());
    const address = new PublicKey(programDataAddress(DEFAULT_POOL_PROGRAM_ID));
    const before = await conn.getAccountInfo(address);
    const other = readFileSync(CP_SWAP_SO);
    const slot = await v.deployProgram(other);
    const after = await conn.getAccountInfo(address);
    expect(after!.data.readBigUInt64LE(4)).toBe(BigInt(slot));
    expect(BigInt(slot)).not.toBe(before!.data.readBigUInt64LE(4));
    expect(new PublicKey(after!.data.subarray(13, 45)).toBase58()).toBe(owner.publicKey.toBase58());
    expect(Buffer.compare(after!.data.subarray(45, 45 + other.length), other)).toBe(0);
    const mint = Keypair.generate().publicKey.toBase58();
    await v.createMint(mint);
    // The venue's program answers the pool's instruction now: not the pool's success.
    expect((await open(owner, mint)).err).not.toBeNull();
    await v.deployProgram(POOL_SO);
    expect((await open(owner, mint)).err).toBeNull();
  });

  it("starts with the upgrade authority it is given", async () => {
    const owner = Keypair.generate().publicKey.toBase58();
    const other = await startLocalValidator({ port: 0, slotMs: 20, poolUpgradeAuthority: owner });
    try {
      expect(other.upgradeAuthority()).toBe(owner);
    } finally {
      await other.close();
    }
  });
});

describe("port + 1", () => {
  it("serves web3.js's default websocket endpoint (port + 1) when asked", async () => {
    const v2 = await startLocalValidator({ port: 0, slotMs: 20, alsoListenPortPlusOne: true });
    try {
      const c2 = new Connection(v2.rpcUrl, "confirmed");
      const kp = Keypair.generate();
      await v2.airdrop(kp.publicKey.toBase58(), LAMPORTS_PER_SOL);
      const sig = await sendAndConfirmTransaction(
        c2,
        new Transaction().add(SystemProgram.transfer({ fromPubkey: kp.publicKey, toPubkey: payer.publicKey, lamports: 1_000_000 })),
        [kp],
      );
      expect(sig).toBeTruthy();
    } finally {
      await v2.close();
    }
  });
});
