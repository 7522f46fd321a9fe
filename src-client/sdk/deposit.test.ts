import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import nacl from "tweetnacl";
import { beforeAll, describe, expect, it } from "vitest";
import { createNoteOrThrow, tempDirAround } from "./test-support";
import type { FieldHasher } from "../../src-shared/crypto/hasher";
import { createPoseidonHasher } from "../../src-shared/crypto/poseidon-wasm";
import { parseBase58 } from "../../src-shared/encoding/base58";
import { toHex } from "../../src-shared/encoding/bytes";
import { sandboxDepositMessage } from "../../src-shared/messages";
import { depositAndSaveNote, isLeafMismatch, sandboxDeposit } from "./deposit";
import { RelayClient } from "./http";
import { Keypair } from "./keypair";
import { loadNote, type DepositNote } from "./note";

const WSOL = "So11111111111111111111111111111111111111112";
const SIG = "5Af9byqcNKxE7jR3cCD6dNMgj1hbuHAuAgfv6GMuQ1w4L4N8vhBiRV8pfBxm7XpYnxDkTCESnGuTLCNPwVHZa1yw";

/**
 * The deposit's own logic against a stand-in sandbox: what is sent (the
 * precommitment, signed) and how the answered leaf is checked. The real
 * sandbox is in sdk.http.test.ts.
 */
function sandbox(answer: (body: Record<string, unknown>) => { status: number; body: unknown }): { client: RelayClient; bodies: Record<string, unknown>[] } {
  const bodies: Record<string, unknown>[] = [];
  const fetchImpl = (async (_input: string | URL | Request, init?: RequestInit) => {
    const body = JSON.parse(String(init?.body)) as Record<string, unknown>;
    bodies.push(body);
    const a = answer(body);
    return new Response(JSON.stringify(a.body), { status: a.status, headers: { "content-type": "application/json" } });
  }) as typeof fetch;
  return { client: new RelayClient({ baseUrl: "http://relay.test", fetch: fetchImpl }), bodies };
}

let hasher: FieldHasher;
const dir = tempDirAround("sdk-deposit-");
const wallet = Keypair.generate();

beforeAll(async () => {
  hasher = await createPoseidonHasher();
});

const newNote = (): Promise<DepositNote> => createNoteOrThrow({ network: "devnet", mint: WSOL, amount: 1_000_000n, hasher });

describe("sandboxDeposit (protocol v2)", () => {
  it("sends the precommitment, signed over `Deposit: <network> <mint> <amount> <precommitment hex>`, never the leaf", async () => {
    const note = await newNote();
    const s = sandbox(() => ({ status: 200, body: { signature: SIG, status: "indexed", leafIndex: 4, commitment: Array.from(note.commitment) } }));
    const r = await sandboxDeposit(s.client, wallet, note);
    expect(r).toMatchObject({ ok: true, value: { deposit: { signature: SIG, status: "indexed", leafIndex: 4, wallet: wallet.address } } });
    const body = s.bodies[0]!;
    expect(Object.keys(body).sort()).toEqual(["amount", "mint", "network", "precommitment", "signature", "wallet"]);
    expect(body).toMatchObject({ network: "devnet", mint: WSOL, amount: 1_000_000, precommitment: Array.from(note.precommitment), wallet: wallet.address });
    const text = `Deposit: devnet ${WSOL} 1000000 ${toHex(note.precommitment)}`;
    expect(sandboxDepositMessage("devnet", WSOL, 1_000_000n, note.precommitment)).toBe(text);
    const sig = parseBase58(body.signature, 64);
    if (!sig.ok) throw new Error(sig.error);
    const key = parseBase58(wallet.address, 32);
    if (!key.ok) throw new Error(key.error);
    expect(nacl.sign.detached.verify(new TextEncoder().encode(text), sig.value, key.value)).toBe(true);
  });

  it("accepts a failed deposit without a leaf, or with the note's own (already in the tree)", async () => {
    const note = await newNote();
    for (const commitment of [null, Array.from(note.commitment)]) {
      const s = sandbox(() => ({ status: 200, body: { signature: SIG, status: "failed", leafIndex: null, commitment } }));
      expect(await sandboxDeposit(s.client, wallet, note)).toMatchObject({ ok: true, value: { deposit: { status: "failed", leafIndex: null } } });
    }
  });

  it("answers LeafMismatch when the pool names a leaf other than Poseidon(precommitment, amount, mint)", async () => {
    const note = await newNote();
    const other = note.commitment.slice();
    other[31] = other[31]! ^ 1;
    const s = sandbox(() => ({ status: 200, body: { signature: SIG, status: "indexed", leafIndex: 0, commitment: Array.from(other) } }));
    const r = await sandboxDeposit(s.client, wallet, note);
    expect(r).toMatchObject({ ok: false, status: 200, error: "LeafMismatch", message: expect.stringContaining(SIG) });
    if (r.ok || !isLeafMismatch(r)) throw new Error("expected a LeafMismatch");
    expect(r.answer).toMatchObject({ signature: SIG, status: "indexed", leafIndex: 0, commitment: other });
    expect(r.expected).toEqual(note.commitment);
  });
});

describe("depositAndSaveNote", () => {
  it("saves the note first, then records the deposit when the leaf is the note's", async () => {
    const note = await newNote();
    const file = path.join(dir(), "ok.json");
    const s = sandbox(() => {
      // The note is on disk, without a deposit, before the request leaves.
      expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({ version: 3, state: "confirmed", deposit: null, leafIndex: null });
      return { status: 200, body: { signature: SIG, status: "indexed", leafIndex: 2, commitment: Array.from(note.commitment) } };
    });
    expect(await depositAndSaveNote(s.client, wallet, note, file)).toMatchObject({ ok: true, value: { deposit: { leafIndex: 2 } } });
    const saved = await loadNote(file, hasher);
    expect(saved.ok && saved.value.deposit).toEqual({ signature: SIG, status: "indexed", leafIndex: 2, wallet: wallet.address });
  });

  it("a mismatched leaf is an error and the note is kept, not marked deposited", async () => {
    const note = await newNote();
    const file = path.join(dir(), "mismatch.json");
    const s = sandbox(() => ({ status: 200, body: { signature: SIG, status: "indexed", leafIndex: 9, commitment: Array.from(note.precommitment) } }));
    const r = await depositAndSaveNote(s.client, wallet, note, file);
    expect(r).toMatchObject({
      ok: false,
      error: { stage: "leaf", noteFile: file, failure: { error: "LeafMismatch", answer: { signature: SIG, leafIndex: 9 } } },
    });
    const saved = await loadNote(file, hasher);
    if (!saved.ok) throw new Error(saved.error);
    expect(saved.value.deposit).toBeNull();
    expect(saved.value.secrets.secret).toBe(note.secrets.secret);
  });

  it("removes the unused note when the relay refuses (no funds moved), keeps it when the answer is garbled", async () => {
    const refused = path.join(dir(), "refused.json");
    const r = await depositAndSaveNote(sandbox(() => ({ status: 400, body: { error: "InsufficientFunds" } })).client, wallet, await newNote(), refused);
    expect(r).toMatchObject({ ok: false, error: { stage: "deposit", noteFile: null, failure: { error: "InsufficientFunds" } } });
    expect(existsSync(refused)).toBe(false);
    const garbled = path.join(dir(), "garbled.json");
    const g = await depositAndSaveNote(
      sandbox(() => ({ status: 200, body: { signature: SIG, status: "indexed", leafIndex: 0 } })).client,
      wallet,
      await newNote(),
      garbled,
    );
    expect(g).toMatchObject({ ok: false, error: { stage: "deposit", noteFile: garbled, failure: { error: "BadResponse" } } });
    expect(existsSync(garbled)).toBe(true);
  });
});
