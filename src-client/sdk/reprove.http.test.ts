/**
 * Issue 25 over HTTP against the real relay process: the root a withdrawal
 * was proved for is pushed out of the pool's 1,000-root history between
 * proving and sending (1,000 deposits land meanwhile), the relay answers
 * InvalidRoot, and the SDK fetches a fresh path, proves again and sends once
 * more by itself, saying so in its stages.
 */
import { createPrivateKey, sign } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import nacl from "tweetnacl";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPoseidonHasher } from "../../src-shared/crypto/poseidon-wasm";
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { encodeBase58 } from "../../src-shared/encoding/base58";
import { toHex } from "../../src-shared/encoding/bytes";
import { bigIntToBytes32 } from "../../src-shared/encoding/field";
import { sandboxDepositMessage } from "../../src-shared/messages";
import { startRelay, type RelayProcess } from "../../tests/support/relay-process";
import { depositAndSaveNote } from "./deposit";
import { RelayClient } from "./http";
import { Keypair } from "./keypair";
import { createNote } from "./note";
import type { WithdrawalProof } from "./prove";
import { withdraw, type WithdrawStage } from "./withdraw";

const WSOL = "So11111111111111111111111111111111111111112";
const FLUSH = 1000;

let dir: string;
let relay: RelayProcess;
let client: RelayClient;
let hasher: FieldHasher;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "reprove-http-"));
  [relay, hasher] = await Promise.all([startRelay({ RELAY_RATE_LIMITS: "off" }, path.join(dir, "data")), createPoseidonHasher()]);
  client = new RelayClient({ baseUrl: relay.url, timeoutMs: 30_000 });
});
afterAll(async () => {
  if (relay && relay.child.exitCode === null) await relay.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** `count` deposits of 1 lamport by one wallet over HTTP, 50 at a time (the sandbox applies them in order, one group commit each). */
async function flood(count: number): Promise<void> {
  const kp = nacl.sign.keyPair();
  const wallet = encodeBase58(kp.publicKey);
  // Node signs in microseconds where tweetnacl takes milliseconds: a thousand signatures stay quick.
  const key = createPrivateKey({
    key: Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), kp.secretKey.subarray(0, 32)]),
    format: "der",
    type: "pkcs8",
  });
  const funded = await client.sandboxAirdrop({ network: "mainnet", wallet, mint: WSOL, amount: BigInt(count) });
  if (!funded.ok) throw new Error(JSON.stringify(funded));
  let next = 0;
  const one = async (): Promise<void> => {
    const i = next++;
    const precommitment = hasher.hash([bigIntToBytes32(BigInt(Date.now())), bigIntToBytes32(BigInt(i) + 1n)]);
    const signature = encodeBase58(new Uint8Array(sign(null, Buffer.from(sandboxDepositMessage("mainnet", WSOL, 1, precommitment)), key)));
    const r = await fetch(`${relay.url}/sandbox/deposit`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ network: "mainnet", mint: WSOL, amount: 1, precommitment: Array.from(precommitment), wallet, signature }),
    });
    if (r.status !== 200) throw new Error(`flood deposit ${i}: ${r.status} ${await r.text()}`);
  };
  while (next < count) await Promise.all(Array.from({ length: Math.min(50, count - next) }, one));
}

describe("withdraw re-proves against a fresh root when the relay no longer knows the proof's", () => {
  it("proves again once and lands when 1,000 deposits flushed the root between proving and sending", async () => {
    const depositor = Keypair.generate();
    const login = Keypair.generate();
    expect((await client.sandboxAirdrop({ network: "mainnet", wallet: depositor.address, mint: WSOL, amount: 2_000_000n })).ok).toBe(true);
    const created = await createNote({ network: "mainnet", mint: WSOL, amount: 2_000_000n, hasher });
    if (!created.ok) throw new Error(created.error);
    const deposited = await depositAndSaveNote(client, depositor, created.value, path.join(dir, "note.json"));
    if (!deposited.ok) throw new Error(JSON.stringify(deposited.error));

    const recipient = Keypair.generate().address;
    const stages: WithdrawStage[] = [];
    const saved: WithdrawalProof[] = [];
    const r = await withdraw(client, deposited.value, recipient, {
      wallet: login,
      hasher,
      amount: 1_000_000n,
      onStage: (s) => stages.push(s),
      beforeRelay: async (p) => {
        saved.push(p);
        // Between proving and sending the first time, the pool takes 1,000 more leaves: the proof's root leaves its history.
        if (saved.length === 1) await flood(FLUSH);
        return { ok: true, value: undefined };
      },
    });
    if (!r.ok) throw new Error(JSON.stringify(r.error, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v)));
    expect(r.value.reproved).toBe(true);
    expect(stages).toEqual(["login", "nullifier", "fees", "merkle", "prove", "save", "relay", "reprove", "merkle", "prove", "save", "relay"]);
    // Two proofs of the same withdrawal (the same nullifier and change note), for two roots; the second landed.
    expect(saved).toHaveLength(2);
    expect(toHex(saved[1]!.root)).not.toBe(toHex(saved[0]!.root));
    expect(toHex(saved[1]!.nullifierHash)).toBe(toHex(saved[0]!.nullifierHash));
    expect(toHex(saved[1]!.changeCommitment)).toBe(toHex(saved[0]!.changeCommitment));
    expect(toHex(r.value.proof.root)).toBe(toHex(saved[1]!.root));
    expect(r.value.changeLeafIndex).toBe(1 + FLUSH);
    expect(await client.sandboxBalance("mainnet", recipient, WSOL)).toMatchObject({ ok: true, value: { amount: 1_000_000n - r.value.terms.fee } });
  });
});
