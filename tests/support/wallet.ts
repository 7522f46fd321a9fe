import nacl from "tweetnacl";
import { encodeBase58 } from "../../src-shared/encoding/base58";
import { signEd25519 } from "../../src-shared/crypto/ed25519";

export interface TestWallet {
  address: string;
  publicKey: Uint8Array;
  sign(message: string): string;
  /** Raw ed25519 signature over bytes: signs a Solana transaction message. */
  signBytes(message: Uint8Array): Uint8Array;
}

export function newWallet(): TestWallet {
  const kp = nacl.sign.keyPair();
  return {
    address: encodeBase58(kp.publicKey),
    publicKey: kp.publicKey,
    sign: (message) => encodeBase58(signEd25519(message, kp.secretKey)),
    signBytes: (message) => signEd25519(message, kp.secretKey),
  };
}

export interface HttpAnswer {
  status: number;
  json: unknown;
  text: string;
  headers: Headers;
}

async function answer(res: Response): Promise<HttpAnswer> {
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text, headers: res.headers };
}

/** POST with a JSON body (a string body is sent as is, to test malformed JSON). */
export async function post(url: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpAnswer> {
  return answer(
    await fetch(url, {
      method: "POST",
      headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    }),
  );
}

export async function get(url: string, headers: Record<string, string> = {}): Promise<HttpAnswer> {
  return answer(await fetch(url, { headers }));
}
