import { ComputeBudgetInstruction, PublicKey, TransactionMessage, type LoadedAddresses } from "@solana/web3.js";
import nacl from "tweetnacl";
import { beforeAll, describe, expect, it } from "vitest";
import type { FieldHasher } from "../../../src-shared/crypto/hasher";
import { createPoseidonHasher } from "../../../src-shared/crypto/poseidon-wasm";
import { encodeBase58 } from "../../../src-shared/encoding/base58";
import {
  NULLIFIER_ACCOUNT_SIZE,
  ROOT_HISTORY_SIZE,
  SYSVAR_INSTRUCTIONS_ID,
  TREE_DEPTH,
  associatedTokenAddress,
  decodePoolInstruction,
  depositInstruction,
  depositReceiptAddress,
  encodeDepositReceipt,
  encodeNullifierAccount,
  encodePoolEventLog,
  encodeTokenAccount,
  encodeTreeAccount,
  poolNullifierAddress,
  poolTreeAddress,
  publicKeyBytes,
  revertMarkerAddress,
  revertNullifierOfReceipt,
  swapEscrowAddress,
} from "../../../src-shared/pool-program";
import { defaultSolanaConfig, WRAPPED_SOL_MINT, type NetworkConfig } from "../../config/schema";
import type { SwapQuote } from "../../core/swap/quote";
import type { WithdrawalSubmission } from "../../ports/chain";
import type { SwapInstructions } from "../swap-jupiter/decode";
import { Signer } from "../../../src-shared/node/keypair-file";
import { accountInfo, FakeRpc } from "../../../tests/support/fake-solana-rpc";
import { priorityFeeLamports } from "./fee-policy";
import { atLeast, SolanaChain, type SwapInstructionsSource } from "./solana-chain";
import { redactUrl } from "../../../src-shared/redact-url";
import { ADDRESS_LOOKUP_TABLE_PROGRAM_ID, encodeLookupTable } from "../../../src-localnet/programs/cp-swap-client";

const PROGRAM = "FJ5caa9BvE33vmuBc3zFN2JJFAvGHL8UjeQ2b8iBEqZJ";
const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const MINT = WRAPPED_SOL_MINT;
const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";

const signer = new Signer(nacl.sign.keyPair().secretKey);
let hasher: FieldHasher;
beforeAll(async () => {
  hasher = await createPoseidonHasher();
});

function config(over: Partial<NetworkConfig["solana"]> = {}): NetworkConfig {
  return {
    enabled: true,
    backend: "solana",
    programId: PROGRAM,
    pools: [MINT, USDC],
    rpcUrl: "https://rpc.example.com/secret-key?api-key=hunter2",
    rpcUrls: ["https://rpc.example.com/secret-key?api-key=hunter2"],
    wsUrl: null,
    solana: { ...defaultSolanaConfig(), rebroadcastMs: 20, ...over },
  };
}

function chain(rpc: FakeRpc, over: Partial<NetworkConfig["solana"]> = {}, lines: string[] = []) {
  return new SolanaChain("devnet", config(over), rpc, signer, hasher, (l) => lines.push(l), {
    timing: { pollMs: 5, backoffMs: 2, maxBackoffMs: 10, unknownAfterMs: 200, preSendRetryMs: 40 },
    nowSec: () => 1_700_000_100,
  });
}

const bytes = (fill: number) => new Uint8Array(32).fill(fill);

function treeData(mint: string, root: Uint8Array, nextIndex: number): Uint8Array {
  const roots = Array.from({ length: ROOT_HISTORY_SIZE }, (): Uint8Array => new Uint8Array(32));
  roots[3] = root;
  return encodeTreeAccount({
    mint: publicKeyBytes(mint),
    authority: signer.publicKey,
    nextIndex,
    currentRootIndex: 3,
    roots,
    filledSubtrees: Array.from({ length: TREE_DEPTH }, () => new Uint8Array(32)),
    depositCount: BigInt(nextIndex),
    totalDeposited: 0n,
    totalWithdrawn: 0n,
    createdSlot: 1n,
    minDeposit: 1n,
    bump: 255,
    eventAuthorityBump: 254,
    vaultBump: 253,
    mintField: new Uint8Array(32),
  });
}

function withdrawal(over: Partial<WithdrawalSubmission> = {}): WithdrawalSubmission {
  return {
    mint: MINT,
    mintBytes: publicKeyBytes(MINT),
    recipient: encodeBase58(bytes(9)),
    root: bytes(1),
    nullifierHash: bytes(2),
    proof: new Uint8Array(256),
    depositSize: 1_000_000_000n,
    changeCommitment: bytes(0x0c),
    fee: 5_000_000n,
    ...over,
  };
}

/** The WithdrawEvent the program logs for `w`, its change leaf at `leafIndex`. */
function withdrawEventLogs(w: WithdrawalSubmission, leafIndex: number): string[] {
  return [
    `Program ${PROGRAM} invoke [1]`,
    encodePoolEventLog({
      name: "WithdrawEvent",
      nullifierHash: w.nullifierHash,
      recipient: publicKeyBytes(w.recipient),
      amount: w.depositSize,
      fee: w.fee,
      relayer: signer.publicKey,
      changeCommitment: w.changeCommitment,
      changeLeafIndex: leafIndex,
    }),
    `Program ${PROGRAM} success`,
  ];
}

describe("SolanaChain reads", () => {
  it("reads the tree account's current root and next index", async () => {
    const rpc = new FakeRpc();
    rpc.accounts.set(poolTreeAddress(PROGRAM, MINT), accountInfo(treeData(MINT, bytes(7), 12), PROGRAM));
    const c = chain(rpc);
    expect(await c.treeAccount(MINT)).toEqual({ root: bytes(7), nextIndex: 12 });
    expect(await c.treeAccount(USDC)).toBeNull();
    // An account at the PDA not owned by the program is no pool.
    rpc.accounts.set(poolTreeAddress(PROGRAM, USDC), accountInfo(treeData(USDC, bytes(7), 12), "11111111111111111111111111111111"));
    expect(await c.treeAccount(USDC)).toBeNull();
  });

  it("tells a spent nullifier by the program's account at its PDA", async () => {
    const rpc = new FakeRpc();
    const c = chain(rpc);
    expect(await c.isNullifierSpent(MINT, bytes(2))).toBe(false);
    const address = poolNullifierAddress(PROGRAM, MINT, bytes(2));
    rpc.accounts.set(address, accountInfo(new Uint8Array(0), "11111111111111111111111111111111")); // lamports sent to the PDA
    expect(await c.isNullifierSpent(MINT, bytes(2))).toBe(false);
    rpc.accounts.set(
      address,
      accountInfo(encodeNullifierAccount({ mint: publicKeyBytes(MINT), nullifierHash: bytes(2), kind: "withdraw", slot: 5n }), PROGRAM),
    );
    expect(await c.isNullifierSpent(MINT, bytes(2))).toBe(true);
  });

  it("lists pools from the program's tree accounts, and the configured ones when getProgramAccounts is refused", async () => {
    const rpc = new FakeRpc();
    const other = encodeBase58(bytes(44));
    rpc.programAccounts = [
      { pubkey: new PublicKey(poolTreeAddress(PROGRAM, other)), account: accountInfo(publicKeyBytes(other), PROGRAM) },
      // A tree account whose mint does not derive to its address is ignored.
      { pubkey: new PublicKey(poolTreeAddress(PROGRAM, MINT)), account: accountInfo(publicKeyBytes(other), PROGRAM) },
    ];
    rpc.accounts.set(poolTreeAddress(PROGRAM, MINT), accountInfo(treeData(MINT, bytes(7), 0), PROGRAM));
    const lines: string[] = [];
    const c = chain(rpc, {}, lines);
    expect((await c.listPools()).sort()).toEqual([MINT, other].sort());
    rpc.failures.set("getProgramAccounts", 2);
    expect(await c.listPools()).toEqual([MINT]);
    expect(await c.listPools()).toEqual([MINT]);
    expect(lines.filter((l) => l.includes("getProgramAccounts failed"))).toHaveLength(1);
  });
});

describe("SolanaChain withdrawals", () => {
  it("lands a withdrawal carrying its change commitment, reports the attempt with its network fee, and the change leaf's index from the WithdrawEvent", async () => {
    const rpc = new FakeRpc();
    rpc.accounts.set(associatedTokenAddress(signer.address, MINT), accountInfo(new Uint8Array(165), TOKEN_PROGRAM));
    rpc.landedLogs = () => withdrawEventLogs(withdrawal(), 17);
    const seen: string[] = [];
    const c = chain(rpc);
    const r = await c.submitWithdrawal(withdrawal(), { attempt: async (a) => (seen.push(`${a.verdict}:${a.networkFeeLamports}`), true) });
    expect(r).toEqual({ ok: true, signature: rpc.sends[0]!.signature, changeLeafIndex: 17 });
    const sent = rpc.sends[0]!.tx.message;
    const ix = sent.compiledInstructions[2]!;
    const decoded = decodePoolInstruction(Uint8Array.from(ix.data));
    expect(decoded.ok && decoded.value.name === "withdraw" && decoded.value.changeCommitment).toEqual(bytes(0x0c));
    expect(seen).toEqual(["pending:5000", "landed:5000"]);
    // withdraw only (the relayer's token account exists): two compute-budget instructions, then the pool's.
    const keys = rpc.sends[0]!.tx.message.staticAccountKeys;
    expect(rpc.sends[0]!.tx.message.compiledInstructions.map((i) => keys[i.programIdIndex]!.toBase58())).toEqual([
      "ComputeBudget111111111111111111111111111111",
      "ComputeBudget111111111111111111111111111111",
      PROGRAM,
    ]);
  });

  it("answers changeLeafIndex null when the landed transaction does not tell (no event, or another withdrawal's)", async () => {
    const rpc = new FakeRpc();
    rpc.accounts.set(associatedTokenAddress(signer.address, MINT), accountInfo(new Uint8Array(165), TOKEN_PROGRAM));
    expect(await chain(rpc).submitWithdrawal(withdrawal())).toMatchObject({ ok: true, changeLeafIndex: null });
    // An event naming another change commitment is not believed.
    rpc.landedLogs = () => withdrawEventLogs(withdrawal({ changeCommitment: bytes(0x0d) }), 3);
    const lines: string[] = [];
    expect(await chain(rpc, {}, lines).submitWithdrawal(withdrawal({ nullifierHash: bytes(2) }))).toMatchObject({ ok: true, changeLeafIndex: null });
    expect(lines.join("\n")).toContain("disagree");
  });

  it("creates the relayer's token account when it is missing", async () => {
    const rpc = new FakeRpc();
    const c = chain(rpc);
    expect((await c.submitWithdrawal(withdrawal())).ok).toBe(true);
    const keys = rpc.sends[0]!.tx.message.staticAccountKeys;
    expect(keys[rpc.sends[0]!.tx.message.compiledInstructions[2]!.programIdIndex]!.toBase58()).toBe("ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL");
  });

  it.each([
    [6002, "NullifierAlreadySpent"],
    [6001, "InvalidRoot"],
    [6000, "InvalidProof"],
    [6008, "Failed"],
    [6003, "Failed"],
    [6007, "SlippageExceeded"],
    // v2: where the funds go and the swap's assertion are the transaction's fault, not the proof's.
    [6009, "Failed"],
    [6010, "Failed"],
    [6011, "Failed"],
    [6012, "Failed"],
    [6013, "Failed"],
    [6014, "Failed"],
    // v3: a zero or non-canonical change commitment, or amount 0.
    [6015, "Failed"],
  ])("maps the program's error %i in simulation to %s, sending nothing", async (code, rejection) => {
    const rpc = new FakeRpc();
    rpc.accounts.set(associatedTokenAddress(signer.address, MINT), accountInfo(new Uint8Array(165), TOKEN_PROGRAM));
    rpc.simulation = { err: { InstructionError: [2, { Custom: code }] }, logs: [], unitsConsumed: 0 };
    const r = await chain(rpc).submitWithdrawal(withdrawal());
    expect(r).toMatchObject({ ok: false, rejection });
    expect(rpc.sends).toHaveLength(0);
  });

  it("reads the error name from the logs, and ignores another program's custom code", async () => {
    const rpc = new FakeRpc();
    rpc.accounts.set(associatedTokenAddress(signer.address, MINT), accountInfo(new Uint8Array(165), TOKEN_PROGRAM));
    rpc.simulation = { err: { InstructionError: [0, { Custom: 6000 }] }, logs: [], unitsConsumed: 0 };
    expect(await chain(rpc).submitWithdrawal(withdrawal())).toMatchObject({ ok: false, rejection: "Failed" });
    rpc.simulation = { err: { InstructionError: [2, "ProgramFailedToComplete"] }, logs: ["Program log: Error: UnknownRoot"], unitsConsumed: 0 };
    expect(await chain(rpc).submitWithdrawal(withdrawal())).toMatchObject({ ok: false, rejection: "InvalidRoot" });
  });

  it("maps an on-chain failure, an unprofitable relay, expiry and an unknown outcome", async () => {
    const failed = new FakeRpc();
    failed.onSend = () => ({ err: { InstructionError: [2, { Custom: 6002 }] } });
    expect(await chain(failed).submitWithdrawal(withdrawal())).toMatchObject({
      ok: false,
      rejection: "NullifierAlreadySpent",
      detail: expect.stringContaining("failed on chain"),
    });

    const cheap = new FakeRpc();
    expect(await chain(cheap).submitWithdrawal(withdrawal({ fee: 10n }))).toMatchObject({ ok: false, rejection: "Unprofitable" });
    expect(cheap.sends).toHaveLength(0);
    expect(await chain(cheap, { allowLoss: true }).submitWithdrawal(withdrawal({ fee: 10n }))).toMatchObject({ ok: true });
    expect(await chain(cheap).submitWithdrawal(withdrawal({ mint: USDC, mintBytes: publicKeyBytes(USDC) }))).toMatchObject({
      ok: false,
      rejection: "Unprofitable",
      detail: expect.stringContaining("lamportsPerUnit"),
    });

    const expiring = new FakeRpc();
    expiring.blockhashLife = 3;
    expiring.onSend = () => false;
    expect(await chain(expiring, { maxAttempts: 2 }).submitWithdrawal(withdrawal())).toMatchObject({
      ok: false,
      rejection: "Failed",
      detail: expect.stringContaining("expired"),
    });
    expect(expiring.blockhashCount).toBe(2);

    const lost = new FakeRpc();
    lost.onSend = () => {
      lost.down = "socket hang up";
      return false;
    };
    expect(await chain(lost).submitWithdrawal(withdrawal())).toMatchObject({ ok: false, rejection: "Unknown" });

    const unreachable = new FakeRpc();
    unreachable.down = "ECONNREFUSED";
    expect(await chain(unreachable).submitWithdrawal(withdrawal())).toMatchObject({ ok: false, rejection: "Failed" });
  });

  it("refuses a swap leg it cannot build", async () => {
    const rpc = new FakeRpc();
    const r = await chain(rpc).submitWithdrawal(withdrawal({ swap: { outputMint: USDC, minOut: 1n, quote: {} as never } }));
    expect(r).toMatchObject({ ok: false, rejection: "SwapFailed" });
    expect(rpc.sends).toHaveLength(0);
  });
});

describe("SolanaChain withdraw_swap (protocol v3: through the swap escrow)", () => {
  const quote = (threshold: bigint, rawThreshold: string = threshold.toString()): SwapQuote => ({
    venue: "jupiter",
    inputMint: MINT,
    outputMint: USDC,
    inAmount: 995_000_000n,
    outAmount: 150_000_000n,
    otherAmountThreshold: threshold,
    slippageBps: 50,
    priceImpactPct: 0.1,
    routePlan: [],
    raw: { inAmount: "995000000", otherAmountThreshold: rawThreshold },
  });

  it("atLeast raises the route's minimum to the proof's minOut, in the decoded quote and in the raw one Jupiter gets back", () => {
    expect(atLeast(quote(100n), 50n)).toEqual(quote(100n));
    expect(atLeast(quote(100n), 120n)).toEqual(quote(120n));
    // The raw quote's threshold is what Jupiter builds from: a lower one there is raised too.
    expect(atLeast(quote(100n, "0"), 50n)).toEqual(quote(100n));
    expect(atLeast(quote(100n, "junk"), 50n)).toEqual(quote(100n));
    expect(atLeast({ ...quote(10n), raw: undefined }, 50n)).toEqual({ ...quote(10n), otherAmountThreshold: 50n, raw: undefined });
  });

  it("builds withdraw_swap with the escrow, the Instructions sysvar and the proof's minOut, the venue's swap into the escrow with a minimum no lower than minOut, and assert_swap_out { minOut, nullifierHash } naming the escrow", async () => {
    const rpc = new FakeRpc();
    const recipient = encodeBase58(bytes(9));
    const escrow = swapEscrowAddress(PROGRAM, MINT, bytes(2));
    rpc.accounts.set(associatedTokenAddress(signer.address, MINT), accountInfo(new Uint8Array(165), TOKEN_PROGRAM));
    // The recipient already holds 7 of the output mint.
    const recipientOut = associatedTokenAddress(recipient, USDC);
    rpc.accounts.set(
      recipientOut,
      accountInfo(encodeTokenAccount({ mint: publicKeyBytes(USDC), owner: publicKeyBytes(recipient), amount: 7n }), TOKEN_PROGRAM),
    );
    const venueProgram = encodeBase58(bytes(0x66));
    // A route comes with its lookup table (Jupiter's hold the mints and the programs passed as
    // accounts): withdraw_swap's own 17 named accounts and 448 bytes of data leave no room for a
    // route without one.
    const routeTable = encodeBase58(bytes(0x5b));
    rpc.accounts.set(
      routeTable,
      accountInfo(encodeLookupTable([MINT, USDC, TOKEN_PROGRAM, "11111111111111111111111111111111"]), ADDRESS_LOOKUP_TABLE_PROGRAM_ID),
    );
    const asked: SwapQuote[] = [];
    const destinations: (string | undefined)[] = [];
    const source: SwapInstructionsSource = {
      swapInstructions: async (q, req) => {
        asked.push(q);
        destinations.push(req.destinationTokenAccount);
        const route: SwapInstructions = {
          tokenLedgerInstruction: null,
          computeBudgetInstructions: [],
          setupInstructions: [],
          swapInstruction: {
            programId: venueProgram,
            accounts: [{ pubkey: escrow, isSigner: false, isWritable: true }],
            data: Uint8Array.from([1, 2, 3]),
          },
          cleanupInstruction: null,
          otherInstructions: [],
          addressLookupTableAddresses: [routeTable],
        };
        return { ok: true, value: route };
      },
    };
    const c = new SolanaChain("devnet", config({ allowLoss: true }), rpc, signer, hasher, () => {}, {
      timing: { pollMs: 5, backoffMs: 2, maxBackoffMs: 10, unknownAfterMs: 200, preSendRetryMs: 40 },
      swapInstructions: source,
      swapPrograms: [venueProgram],
    });
    // The simulation leaves the relayer's input account +fee.
    rpc.simulatedAccounts.set(
      associatedTokenAddress(signer.address, MINT),
      accountInfo(encodeTokenAccount({ mint: publicKeyBytes(MINT), owner: publicKeyBytes(signer.address), amount: 5_000_000n }), TOKEN_PROGRAM),
    );
    const minOut = 140_000_000n;
    const w = withdrawal({ recipient, swap: { outputMint: USDC, minOut, quote: quote(100_000_000n) } });
    rpc.landedLogs = () => withdrawEventLogs(w, 40);
    const r = await c.submitWithdrawal(w);
    expect(r).toMatchObject({ ok: true, changeLeafIndex: 40 });
    expect(asked).toHaveLength(1);
    expect(destinations).toEqual([escrow]);
    expect(asked[0]!.otherAmountThreshold).toBe(minOut);
    expect((asked[0]!.raw as { otherAmountThreshold: string }).otherAmountThreshold).toBe(minOut.toString());

    const msg = rpc.sends[0]!.tx.message;
    const landed: { meta: { loadedAddresses: LoadedAddresses } } = await rpc.getTransaction(rpc.sends[0]!.signature);
    const keys = msg
      .getAccountKeys({ accountKeysFromLookups: landed.meta.loadedAddresses })
      .keySegments()
      .flat()
      .map((k) => k.toBase58());
    const ixs = msg.compiledInstructions.map((i) => ({
      program: keys[i.programIdIndex]!,
      accounts: i.accountKeyIndexes.map((k) => keys[k]!),
      data: Uint8Array.from(i.data),
    }));
    const pool = ixs.filter((i) => i.program === PROGRAM);
    expect(pool).toHaveLength(2);
    const ws = decodePoolInstruction(pool[0]!.data);
    expect(ws.ok && ws.value.name === "withdraw_swap" && ws.value).toMatchObject({
      fee: 5_000_000n,
      minOut,
      amount: 1_000_000_000n,
      changeCommitment: bytes(0x0c),
    });
    // The escrow takes v2's relayer output account's place, then the recipient's output account, the output mint, the sysvar.
    expect(pool[0]!.accounts.slice(11, 15)).toEqual([escrow, recipientOut, USDC, SYSVAR_INSTRUCTIONS_ID]);
    expect(decodePoolInstruction(pool[1]!.data)).toEqual({ ok: true, value: { name: "assert_swap_out", minOut, nullifierHash: bytes(2) } });
    expect(pool[1]!.accounts).toEqual([signer.address, MINT, escrow, recipientOut, TOKEN_PROGRAM]);
    // The program creates the recipient's output account when missing: the relay adds no create of its own.
    expect(ixs.map((i) => i.program)).not.toContain("ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL");
    // Order: withdraw_swap, the venue's swap, then assert_swap_out last.
    expect(ixs.map((i) => i.program).slice(-3)).toEqual([PROGRAM, venueProgram, PROGRAM]);
  });
});

describe("SolanaChain withdraw_swap: what the swap venue may do with the relayer's signature", () => {
  const VENUE = encodeBase58(bytes(0x66));
  const FEE = 5_000_000n;
  const TO_SWAP = 995_000_000n;
  const relayerIn = () => associatedTokenAddress(signer.address, MINT);
  const tokenAccount = (owner: string, amount: bigint, mint = MINT) =>
    accountInfo(encodeTokenAccount({ mint: publicKeyBytes(mint), owner: publicKeyBytes(owner), amount }), TOKEN_PROGRAM);
  const quote: SwapQuote = {
    venue: "jupiter",
    inputMint: MINT,
    outputMint: USDC,
    inAmount: TO_SWAP,
    outAmount: 150_000_000n,
    otherAmountThreshold: 149_000_000n,
    slippageBps: 50,
    priceImpactPct: 0.1,
    routePlan: [],
    raw: {},
  };
  const u64le = (n: bigint) => {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setBigUint64(0, n, true);
    return b;
  };
  const transfer = (amount: bigint, source = relayerIn()) => ({
    programId: TOKEN_PROGRAM,
    accounts: [
      { pubkey: source, isSigner: false, isWritable: true },
      { pubkey: encodeBase58(bytes(0x77)), isSigner: false, isWritable: true },
      { pubkey: signer.address, isSigner: true, isWritable: false },
    ],
    data: Uint8Array.from([3, ...u64le(amount)]),
  });
  const escrow = swapEscrowAddress(PROGRAM, MINT, bytes(2));
  const swapIx = {
    programId: VENUE,
    accounts: [
      { pubkey: signer.address, isSigner: true, isWritable: true },
      { pubkey: relayerIn(), isSigner: false, isWritable: true },
      { pubkey: escrow, isSigner: false, isWritable: true },
    ],
    data: Uint8Array.from([1]),
  };

  // The route's lookup table, as Jupiter's come: the mints, programs passed as accounts and the venue's accounts.
  const table = encodeBase58(bytes(0x5a));
  const tableKeys = [MINT, USDC, TOKEN_PROGRAM, "11111111111111111111111111111111", "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL", encodeBase58(bytes(0x77))];

  function setup(setupInstructions: SwapInstructions["setupInstructions"], swapInstruction: SwapInstructions["swapInstruction"] = swapIx) {
    const rpc = new FakeRpc();
    rpc.accounts.set(relayerIn(), tokenAccount(signer.address, 0n));
    rpc.accounts.set(table, accountInfo(encodeLookupTable(tableKeys), ADDRESS_LOOKUP_TABLE_PROGRAM_ID));
    const source: SwapInstructionsSource = {
      swapInstructions: async () => ({
        ok: true,
        value: {
          tokenLedgerInstruction: null,
          computeBudgetInstructions: [],
          setupInstructions,
          swapInstruction,
          cleanupInstruction: null,
          otherInstructions: [],
          addressLookupTableAddresses: [table],
        },
      }),
    };
    const logs: string[] = [];
    const c = new SolanaChain("devnet", config({ allowLoss: true }), rpc, signer, hasher, (l) => logs.push(l), {
      timing: { pollMs: 5, backoffMs: 2, maxBackoffMs: 10, unknownAfterMs: 200, preSendRetryMs: 40 },
      swapInstructions: source,
      swapPrograms: [VENUE],
    });
    const submit = () => c.submitWithdrawal(withdrawal({ recipient: encodeBase58(bytes(9)), swap: { outputMint: USDC, minOut: 140_000_000n, quote } }));
    return { rpc, submit, logs };
  }

  it("refuses a route with an instruction of a program that is not allowlisted (here System's transfer out of the fee payer, or Jupiter v6 when not configured): SwapFailed, nothing simulated or sent", async () => {
    const drain = {
      programId: "11111111111111111111111111111111",
      accounts: [
        { pubkey: signer.address, isSigner: true, isWritable: true },
        { pubkey: encodeBase58(bytes(0x77)), isSigner: false, isWritable: true },
      ],
      data: Uint8Array.from([2, 0, 0, 0, ...u64le(1_000_000_000n)]),
    };
    const foreign = {
      programId: encodeBase58(bytes(0x55)),
      accounts: [{ pubkey: signer.address, isSigner: true, isWritable: true }],
      data: Uint8Array.from([0]),
    };
    for (const ix of [drain, foreign]) {
      const { rpc, submit, logs } = setup([ix]);
      const r = await submit();
      expect(r).toMatchObject({ ok: false, rejection: "SwapFailed", detail: expect.stringContaining("swap route refused") });
      expect(rpc.simulations).toHaveLength(0);
      expect(rpc.sends).toHaveLength(0);
      expect(logs.join("\n")).toContain("swap route refused");
    }
  });

  it("refuses a route that does not pay into the withdrawal's swap escrow (the recipient's account, or the escrow read-only): SwapFailed, nothing simulated", async () => {
    const recipientOut = associatedTokenAddress(encodeBase58(bytes(9)), USDC);
    for (const accounts of [
      [...swapIx.accounts.slice(0, 2), { pubkey: recipientOut, isSigner: false, isWritable: true }],
      [...swapIx.accounts.slice(0, 2), { pubkey: escrow, isSigner: false, isWritable: false }],
    ]) {
      const { rpc, submit } = setup([], { ...swapIx, accounts });
      expect(await submit()).toMatchObject({
        ok: false,
        rejection: "SwapFailed",
        detail: expect.stringContaining(`does not pay into the swap escrow ${escrow}`),
      });
      expect(rpc.simulations).toHaveLength(0);
    }
  });

  it("refuses SwapFailed, nothing simulated or sent, a route whose accounts make the transaction larger than 1232 bytes", async () => {
    const many = Array.from({ length: 12 }, (_, i) => ({ pubkey: encodeBase58(bytes(0x90 + i)), isSigner: false, isWritable: true }));
    const { rpc, submit } = setup([], { ...swapIx, accounts: [...swapIx.accounts, ...many] });
    expect(await submit()).toMatchObject({ ok: false, rejection: "SwapFailed", detail: expect.stringContaining("does not fit in one transaction") });
    expect(rpc.simulations).toHaveLength(0);
    expect(rpc.sends).toHaveLength(0);
  });

  it("refuses a token transfer from the relayer's input account of more than depositSize − fee, or from another account, and SPL Token instructions other than the allowed ones", async () => {
    const approve = { ...transfer(1n), data: Uint8Array.from([4, ...u64le(1n)]) };
    for (const [ixs, text] of [
      [[transfer(TO_SWAP + 1n)], "more than the swap input"],
      [[transfer(TO_SWAP), transfer(1n)], "more than the swap input"],
      [[transfer(1n, encodeBase58(bytes(0x44)))], "not from the relayer's input account"],
      [[approve], "SPL Token instruction 4"],
    ] as const) {
      const { rpc, submit } = setup([...ixs]);
      expect(await submit()).toMatchObject({ ok: false, rejection: "SwapFailed", detail: expect.stringContaining(text) });
      expect(rpc.sends).toHaveLength(0);
    }
  });

  const ASSOCIATED_TOKEN = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL";
  const createAta = (owner: string, mint: string) => ({
    programId: ASSOCIATED_TOKEN,
    accounts: [
      { pubkey: signer.address, isSigner: true, isWritable: true },
      { pubkey: associatedTokenAddress(owner, mint), isSigner: false, isWritable: true },
      { pubkey: owner, isSigner: false, isWritable: false },
      { pubkey: mint, isSigner: false, isWritable: false },
      { pubkey: "11111111111111111111111111111111", isSigner: false, isWritable: false },
      { pubkey: TOKEN_PROGRAM, isSigner: false, isWritable: false },
    ],
    data: Uint8Array.from([1]),
  });

  it("lets a route create token accounts only for the relayer or the recipient, of the input or the output mint (the relayer pays their rent)", async () => {
    const recipient = encodeBase58(bytes(9));
    const stranger = encodeBase58(bytes(0x31));
    const otherMint = encodeBase58(bytes(0x32));
    for (const [ix, text] of [
      [createAta(stranger, USDC), `creates a token account for ${stranger}, neither the relayer nor the recipient`],
      [createAta(recipient, otherMint), `creates a token account of mint ${otherMint}, neither the input nor the output mint`],
      [createAta(signer.address, otherMint), `creates a token account of mint ${otherMint}`],
    ] as const) {
      const { rpc, submit } = setup([ix]);
      expect(await submit()).toMatchObject({ ok: false, rejection: "SwapFailed", detail: expect.stringContaining(text) });
      expect(rpc.simulations).toHaveLength(0);
      expect(rpc.sends).toHaveLength(0);
    }
    // The four it may need pass the static check (two at a time: four do not fit in one packet with this route).
    for (const pair of [
      [createAta(recipient, USDC), createAta(signer.address, MINT)],
      [createAta(recipient, MINT), createAta(signer.address, USDC)],
    ]) {
      const ok = setup(pair);
      ok.rpc.simulatedAccounts.set(relayerIn(), tokenAccount(signer.address, FEE));
      expect(await ok.submit()).toMatchObject({ ok: true });
    }
  });

  it("refuses, after simulation and with nothing sent, a route that takes more of the relayer's SOL than the fee and the rent of the accounts it pays for", async () => {
    const rent = (size: number) => (128 + size) * 6960; // FakeRpc's rent
    // Missing before: the relayer's output account and the recipient's two: three token accounts, plus the nullifier account.
    const allowed = 5000 + rent(NULLIFIER_ACCOUNT_SIZE) + 3 * rent(165);
    const start = 5_000_000_000;
    const run = async (loss: number) => {
      const r = setup([]);
      r.rpc.accounts.set(signer.address, accountInfo(new Uint8Array(0), "11111111111111111111111111111111", { lamports: start }));
      r.rpc.simulatedAccounts.set(signer.address, accountInfo(new Uint8Array(0), "11111111111111111111111111111111", { lamports: start - loss }));
      r.rpc.simulatedAccounts.set(relayerIn(), tokenAccount(signer.address, FEE));
      return { ...r, result: await r.submit() };
    };
    const drained = await run(allowed + 1);
    expect(drained.result).toMatchObject({
      ok: false,
      rejection: "SwapFailed",
      detail: expect.stringContaining(`takes ${allowed + 1} lamports from the relayer ${signer.address}, more than the fee and rent it pays for (${allowed})`),
    });
    expect(drained.rpc.simulations).toHaveLength(1);
    expect(drained.rpc.sends).toHaveLength(0);
    expect((await run(1_000_000_000)).result).toMatchObject({ ok: false, rejection: "SwapFailed" });
    // Exactly the fee and that rent: sent.
    const honest = await run(allowed);
    expect(honest.result).toMatchObject({ ok: true });
    expect(honest.rpc.sends.length).toBeGreaterThan(0);
  });

  it("refuses, after simulation and with nothing sent, a route whose simulation leaves the relayer's input account short of +fee or another relayer token account lower", async () => {
    // Statically fine (a transfer of at most the input), but on top of the swap it takes the fee too.
    const a = setup([transfer(FEE)]);
    a.rpc.simulatedAccounts.set(relayerIn(), tokenAccount(signer.address, 0n));
    expect(await a.submit()).toMatchObject({ ok: false, rejection: "SwapFailed", detail: expect.stringContaining("not +5000000 (the fee)") });
    expect(a.rpc.simulations).toHaveLength(1);
    expect(a.rpc.sends).toHaveLength(0);

    const other = associatedTokenAddress(signer.address, USDC);
    const b = setup([{ ...swapIx, accounts: [...swapIx.accounts, { pubkey: other, isSigner: false, isWritable: true }] }]);
    b.rpc.accounts.set(other, tokenAccount(signer.address, 70n, USDC));
    b.rpc.simulatedAccounts.set(relayerIn(), tokenAccount(signer.address, FEE));
    b.rpc.simulatedAccounts.set(other, tokenAccount(signer.address, 60n, USDC));
    expect(await b.submit()).toMatchObject({
      ok: false,
      rejection: "SwapFailed",
      detail: expect.stringContaining(`takes 10 from the relayer's token account ${other}`),
    });
    expect(b.rpc.sends).toHaveLength(0);

    // The same route leaving every relayer account where it should: sent and landed.
    const c = setup([{ ...swapIx, accounts: [...swapIx.accounts, { pubkey: other, isSigner: false, isWritable: true }] }]);
    c.rpc.accounts.set(other, tokenAccount(signer.address, 70n, USDC));
    c.rpc.simulatedAccounts.set(relayerIn(), tokenAccount(signer.address, FEE));
    expect(await c.submit()).toMatchObject({ ok: true });
    expect(c.rpc.sends.length).toBeGreaterThan(0);
  });
});

describe("SolanaChain deposits and reverts", () => {
  const depositor = encodeBase58(bytes(0x33));
  const nonce = 42n;
  const precommitment = bytes(0);
  const commitment = bytes(0);

  function depositTx(rpc: FakeRpc, status: "failed" | "indexed" | "reverted"): string {
    const signature = encodeBase58(new Uint8Array(64).fill(5));
    const ix = depositInstruction({ programId: PROGRAM, depositor, mint: MINT, precommitment, amount: 700n, nonce, hasher });
    const message = new TransactionMessage({
      payerKey: new PublicKey(depositor),
      recentBlockhash: encodeBase58(bytes(8)),
      instructions: [ix],
    }).compileToV0Message();
    const event =
      status === "indexed"
        ? encodePoolEventLog({ name: "DepositEvent", leafIndex: 4, commitment, depositor: publicKeyBytes(depositor), amount: 700n, slot: 9n, nonce })
        : encodePoolEventLog({
            name: "DepositFailedEvent",
            precommitment,
            commitment,
            depositor: publicKeyBytes(depositor),
            amount: 700n,
            slot: 9n,
            nonce,
            reason: "zero",
          });
    rpc.transactions.set(signature, {
      slot: 9,
      blockTime: 1_600_000_000,
      meta: { err: null, logMessages: [`Program ${PROGRAM} invoke [1]`, event, `Program ${PROGRAM} success`] },
      transaction: { message, signatures: [signature] },
    });
    const receipt = depositReceiptAddress(PROGRAM, MINT, depositor, nonce);
    rpc.accounts.set(
      receipt,
      accountInfo(
        encodeDepositReceipt({
          mint: publicKeyBytes(MINT),
          depositor: publicKeyBytes(depositor),
          commitment,
          amount: 700n,
          nonce,
          status,
          leafIndex: status === "indexed" ? 4 : null,
          createdAt: 1_700_000_000n,
          bump: 250,
        }),
        PROGRAM,
      ),
    );
    return signature;
  }

  it("finds a deposit by its transaction: mint from the receipt PDA, status and time from the receipt", async () => {
    const rpc = new FakeRpc();
    const sig = depositTx(rpc, "failed");
    const c = chain(rpc);
    expect(await c.findDeposit(sig)).toEqual({ signature: sig, mint: MINT, amount: 700n, depositor, status: "failed", createdAt: 1_700_000_000 });
    expect(await c.findDeposit(encodeBase58(new Uint8Array(64).fill(6)))).toBeNull();
    expect(await c.findDeposit("not-a-signature")).toBeNull();
  });

  it("reverts a failed deposit as the pool authority, creating the revert marker", async () => {
    const rpc = new FakeRpc();
    const sig = depositTx(rpc, "failed");
    const r = await chain(rpc).revertDeposit({ depositSignature: sig, depositor });
    expect(r).toEqual({ ok: true, signature: rpc.sends[0]!.signature, amount: 700n, mint: MINT });
    const receipt = depositReceiptAddress(PROGRAM, MINT, depositor, nonce);
    const marker = revertMarkerAddress(PROGRAM, MINT, revertNullifierOfReceipt(hasher, publicKeyBytes(receipt)));
    const keys = rpc.sends[0]!.tx.message.staticAccountKeys.map((k) => k.toBase58());
    expect(keys[0]).toBe(signer.address);
    expect(keys).toContain(marker);
    expect(keys).toContain(receipt);
  });

  it("sends a revert with a compute-unit price within solana.revertPriorityLamports, however much the market asks (a revert earns no fee)", async () => {
    const priced = async (budget: number) => {
      const rpc = new FakeRpc();
      rpc.prioritizationFees = [900_000, 1_000_000, 5_000_000];
      const sig = depositTx(rpc, "failed");
      expect(await chain(rpc, { revertPriorityLamports: budget }).revertDeposit({ depositSignature: sig, depositor })).toMatchObject({ ok: true });
      const ixs = TransactionMessage.decompile(rpc.sends[0]!.tx.message).instructions;
      const limit = ComputeBudgetInstruction.decodeSetComputeUnitLimit(ixs[0]!).units;
      const price = Number(ComputeBudgetInstruction.decodeSetComputeUnitPrice(ixs[1]!).microLamports);
      return { limit, price, priorityLamports: priorityFeeLamports(price, limit) };
    };
    const capped = await priced(2_000);
    expect(capped.priorityLamports).toBeLessThanOrEqual(2_000);
    expect(capped.price).toBe(Math.floor((2_000 * 1_000_000) / capped.limit));
    expect((await priced(0)).price).toBe(0);
    // A budget above what maxPriorityMicroLamports allows leaves that cap in force.
    expect((await priced(1_000_000_000)).price).toBe(1_000_000);
  });

  it("applies the revert rules before sending, and maps the program's refusals", async () => {
    const rpc = new FakeRpc();
    const sig = depositTx(rpc, "failed");
    const c = chain(rpc);
    expect(await c.revertDeposit({ depositSignature: sig, depositor: encodeBase58(bytes(0x44)) })).toMatchObject({ ok: false, rejection: "NotDepositor" });
    expect(await c.revertDeposit({ depositSignature: encodeBase58(new Uint8Array(64).fill(6)), depositor })).toMatchObject({
      ok: false,
      rejection: "DepositNotFound",
    });
    const receipt = depositReceiptAddress(PROGRAM, MINT, depositor, nonce);
    const marker = revertMarkerAddress(PROGRAM, MINT, revertNullifierOfReceipt(hasher, publicKeyBytes(receipt)));
    rpc.accounts.set(marker, accountInfo(new Uint8Array(NULLIFIER_ACCOUNT_SIZE), PROGRAM));
    expect(await c.revertDeposit({ depositSignature: sig, depositor })).toMatchObject({ ok: false, rejection: "NullifierSpent" });
    rpc.accounts.delete(marker);
    rpc.simulation = { err: { InstructionError: [2, { Custom: 6002 }] }, logs: [], unitsConsumed: 0 };
    expect(await c.revertDeposit({ depositSignature: sig, depositor })).toMatchObject({ ok: false, rejection: "NullifierSpent" });
    rpc.simulation = { err: { InstructionError: [2, { Custom: 6005 }] }, logs: [], unitsConsumed: 0 };
    expect(await c.revertDeposit({ depositSignature: sig, depositor })).toMatchObject({
      ok: false,
      rejection: "Failed",
      detail: expect.stringContaining("not the pool's authority"),
    });
    expect(rpc.sends).toHaveLength(0);

    const indexed = new FakeRpc();
    const sig2 = depositTx(indexed, "indexed");
    expect(await chain(indexed).revertDeposit({ depositSignature: sig2, depositor })).toMatchObject({ ok: false, rejection: "AlreadyIndexed" });
  });
});

describe("SolanaChain health and start-up", () => {
  it("is green with a healthy node and a funded fee payer, with the runway", async () => {
    const rpc = new FakeRpc();
    rpc.balance = 2_000_000_000;
    const checks = await chain(rpc).health();
    expect(checks.map((c) => [c.name, c.ok])).toEqual([
      ["chain:devnet", true],
      ["fee-payer:devnet", true],
    ]);
    expect(checks[1]!.detail).toMatch(/holds 2\.0000 SOL .*≈ \d+ relays left/);
    // The RPC's API key never reaches /health.
    expect(JSON.stringify(checks)).not.toContain("hunter2");
    expect(JSON.stringify(checks)).not.toContain("secret-key");
  });

  it("turns red when the node lags past maxSlotLag, the RPC is down or the fee payer runs low, and never throws", async () => {
    const rpc = new FakeRpc();
    rpc.health = { ok: false, behindBySlots: 20, message: "Node is behind by 20 slots" };
    const c = chain(rpc, { maxSlotLag: 50 });
    expect((await c.health())[0]!.ok).toBe(true);
    rpc.health = { ok: false, behindBySlots: 200, message: "Node is behind by 200 slots" };
    expect((await c.health())[0]).toMatchObject({ ok: false, detail: expect.stringContaining("200 slots behind") });
    rpc.health = { ok: true };
    rpc.balance = 1_000;
    expect((await c.health())[1]).toMatchObject({ ok: false, detail: expect.stringContaining("≈ 0 relays left") });
    rpc.down = "fetch failed";
    const down = await c.health();
    expect(down.map((x) => x.ok)).toEqual([false, false]);
    expect(down[0]!.detail).toContain("unreachable");
  });

  it("connects only to an answering RPC with the program deployed", async () => {
    const rpc = new FakeRpc();
    rpc.down = "ECONNREFUSED";
    await expect(SolanaChain.connect("devnet", config(), signer, hasher, () => {}, { rpc })).rejects.toThrow(/https:\/\/rpc\.example\.com\/… does not answer/);
    rpc.down = null;
    await expect(SolanaChain.connect("devnet", config(), signer, hasher, () => {}, { rpc })).rejects.toThrow(`program ${PROGRAM} does not exist`);
    rpc.accounts.set(PROGRAM, accountInfo(new Uint8Array(0), "BPFLoaderUpgradeab1e11111111111111111111111"));
    await expect(SolanaChain.connect("devnet", config(), signer, hasher, () => {}, { rpc })).rejects.toThrow("not an executable program");
    rpc.accounts.set(PROGRAM, accountInfo(new Uint8Array(0), "BPFLoaderUpgradeab1e11111111111111111111111", { executable: true }));
    const lines: string[] = [];
    const c = await SolanaChain.connect("devnet", config(), signer, hasher, (l) => lines.push(l), { rpc });
    expect(c.kind).toBe("solana");
    expect(lines.join("\n")).toContain(signer.address);
    expect(lines.join("\n")).not.toContain("hunter2");
  });

  it("redacts an RPC URL to its origin", () => {
    expect(redactUrl("https://mainnet.helius-rpc.com/?api-key=abc")).toBe("https://mainnet.helius-rpc.com/…");
    expect(redactUrl("http://127.0.0.1:8899")).toBe("http://127.0.0.1:8899");
  });
});
