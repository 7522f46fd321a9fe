import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendRaw, type RawAnswer } from "../support/raw-http";
import { startRelay, type RelayProcess } from "../support/relay-process";
import { airdrop, deposit, randomPrecommitment, USDC, WSOL } from "../support/sandbox";
import { newWallet } from "../support/wallet";

let relay: RelayProcess;

beforeAll(async () => {
  relay = await startRelay({ RELAY_RATE_LIMITS: "off" });
  const w = newWallet();
  await airdrop(relay.url, w, 1_000_000);
  for (let i = 0; i < 3; i++) await deposit(relay.url, w, randomPrecommitment(), 100);
});
afterAll(async () => {
  await relay?.stop();
  relay?.cleanup();
});

/** Status, body and headers, without the ones that differ from one answer to the next. */
function comparable(r: RawAnswer): { status: number; text: string; headers: Record<string, unknown> } {
  const { date: _date, "x-request-id": requestId, ...headers } = r.headers;
  expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
  return { status: r.status, text: r.text, headers };
}

// http/front-door.ts answers the exact paths; a trailing slash (and upper case) sends the same read through Express's routes.
const reads = [
  `/get_proof/${WSOL}/32/0/mainnet`,
  `/get_proof/${WSOL}/32/2/mainnet`,
  `/get_merkle/${WSOL}/32/mainnet`,
  `/get_node/${WSOL}/32/1/mainnet`,
  `/get_node/${WSOL}/32/${2 ** 32 + 1}/mainnet`,
  // Every error of these reads.
  `/get_proof/${WSOL}/32/3/mainnet`,
  `/get_proof/${WSOL}/32/x/mainnet`,
  `/get_proof/${WSOL}/32/${2 ** 32}/mainnet`,
  `/get_proof/${WSOL}/31/0/mainnet`,
  `/get_proof/${WSOL}/32/0/testnet`,
  `/get_proof/not-base58-0OIl/32/0/mainnet`,
  `/get_merkle/11111111111111111111111111111111/32/mainnet`,
  `/get_merkle/${USDC}/32/devnet`,
  `/get_node/${WSOL}/32/0/mainnet`,
  `/get_node/${WSOL}/32/${2 ** 33}/mainnet`,
];

describe("the indexer's reads ahead of Express (http/front-door.ts)", () => {
  it("answers each read, and each of its errors, with the same status, headers and bytes as Express's routes do", async () => {
    for (const path of reads) {
      const direct = comparable(await sendRaw(`${relay.url}${path}`));
      expect(direct.headers["x-content-type-options"], path).toBe("nosniff");
      expect(direct.headers["content-type"], path).toBe("application/json; charset=utf-8");
      for (const variant of [`${path}/`, path.replace(/^\/get_[a-z]+/, (route) => route.toUpperCase())]) {
        expect(comparable(await sendRaw(`${relay.url}${variant}`)), variant).toEqual(direct);
      }
    }
  });
});
