import { describe, expect, it } from "vitest";
import { fromHex, toHex } from "../encoding/bytes";
import { encodeBase64 } from "./base64";
import { DEFAULT_POOL_PROGRAM_ID, EVENT_IX_TAG, TOKEN_PROGRAM_ID } from "./constants";
import {
  decodePoolEvent,
  decodePoolEventInstruction,
  decodePoolEventLogs,
  encodePoolEvent,
  encodePoolEventInstruction,
  encodePoolEventLog,
  EVENT_DATA_SIZES,
  type PoolEvent,
} from "./events";

const fill = (b: number, n = 32): Uint8Array => new Uint8Array(n).fill(b);
const PROGRAM = DEFAULT_POOL_PROGRAM_ID;

const deposit: PoolEvent = { name: "DepositEvent", leafIndex: 3, commitment: fill(0x11), depositor: fill(0x22), amount: 1000n, slot: 42n, nonce: 7n };
const failed: PoolEvent = {
  name: "DepositFailedEvent",
  precommitment: fill(0),
  commitment: fill(0),
  depositor: fill(0x22),
  amount: 5n,
  slot: 43n,
  nonce: 8n,
  reason: "zero",
};
const withdraw: PoolEvent = {
  name: "WithdrawEvent",
  nullifierHash: fill(0x33),
  recipient: fill(0x44),
  amount: 1000n,
  fee: 10n,
  relayer: fill(0x55),
  changeCommitment: fill(0x77),
  changeLeafIndex: 0x01020304,
};
const revert: PoolEvent = { name: "RevertEvent", depositor: fill(0x22), amount: 5n, nonce: 8n, revertNullifier: fill(0x66) };

const DEPOSIT_LINE =
  "Program data: ePg9Ux+Oa5ADAAAAEREREREREREREREREREREREREREREREREREREREREREiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIiIugDAAAAAAAAKgAAAAAAAAAHAAAAAAAAAA==";

const invoke = (id: string, depth = 1): string => `Program ${id} invoke [${depth}]`;
const success = (id: string): string => `Program ${id} success`;

describe("pool events", () => {
  it("a fixed DepositEvent is logged as the pinned 'Program data:' line", () => {
    expect(encodePoolEventLog(deposit)).toBe(DEPOSIT_LINE);
    const layout = "78f83d531f8e6b90" + "03000000" + "11".repeat(32) + "22".repeat(32) + "e803000000000000" + "2a00000000000000" + "0700000000000000";
    expect(DEPOSIT_LINE).toBe(`Program data: ${btoa(String.fromCharCode(...fromHex(layout)!))}`);
  });

  it("every event decodes back to itself, with sizes 100/129/156/88", () => {
    for (const e of [deposit, failed, withdraw, revert]) {
      const bytes = encodePoolEvent(e);
      expect(bytes.length).toBe(EVENT_DATA_SIZES[e.name]);
      expect(decodePoolEvent(bytes)).toEqual(e);
    }
    expect(Object.values(EVENT_DATA_SIZES)).toEqual([100, 129, 156, 88]);
    expect(encodePoolEvent(failed)[128]).toBe(1);
    expect(encodePoolEvent({ ...failed, reason: "duplicate" } as PoolEvent)[128]).toBe(3);
    // precommitment, then the computed leaf (zero when there is none), then the depositor.
    const dup = encodePoolEvent({ ...failed, precommitment: fill(0x77), commitment: fill(0x88), reason: "duplicate" } as PoolEvent);
    expect([dup[8], dup[39], dup[40], dup[71], dup[72]]).toEqual([0x77, 0x77, 0x88, 0x88, 0x22]);
  });

  it("WithdrawEvent v3 appends changeCommitment and changeLeafIndex (u32 LE) after v2's fields; v2's 120-byte event is not ours", () => {
    const bytes = encodePoolEvent(withdraw);
    const layout =
      "1609851aa02c47c0" + "33".repeat(32) + "44".repeat(32) + "e803000000000000" + "0a00000000000000" + "55".repeat(32) + "77".repeat(32) + "04030201";
    expect(toHex(bytes)).toBe(layout);
    expect(decodePoolEvent(bytes.subarray(0, 120))).toBeNull();
  });

  it("without a programId, every pool 'Program data:' line in order counts", () => {
    const logs = [encodePoolEventLog(deposit), "Program log: hello", encodePoolEventLog(withdraw)];
    expect(decodePoolEventLogs(logs)).toEqual([deposit, withdraw]);
  });

  it("with a programId, only lines logged while our program is the innermost frame count", () => {
    const logs = [
      invoke(PROGRAM),
      "Program log: Instruction: Deposit",
      invoke(TOKEN_PROGRAM_ID, 2),
      encodePoolEventLog(failed), // logged by the token program's frame: not ours
      success(TOKEN_PROGRAM_ID),
      encodePoolEventLog(deposit),
      `Program ${PROGRAM} consumed 12345 of 200000 compute units`,
      success(PROGRAM),
      encodePoolEventLog(withdraw), // outside any frame
      invoke("Other111111111111111111111111111111111111111"),
      encodePoolEventLog(revert), // another program's look-alike
      "Program Other111111111111111111111111111111111111111 failed: custom program error: 0x1",
      invoke(PROGRAM),
      encodePoolEventLog(revert),
      success(PROGRAM),
    ];
    expect(decodePoolEventLogs(logs, PROGRAM)).toEqual([deposit, revert]);
    expect(decodePoolEventLogs(logs)).toHaveLength(5);
  });

  it("ignores garbage and never throws: bad base64, wrong sizes, unknown discriminators, non-strings", () => {
    const bytes = encodePoolEvent(deposit);
    const logs: unknown[] = [
      invoke(PROGRAM),
      "Program data: !!!not base64",
      "Program data: ",
      "Program data: ePg9Ux+Oa5AD", // truncated DepositEvent
      `Program data: ${encodeBase64(new Uint8Array([...bytes, 0]))}`, // trailing byte
      `Program data: ${encodeBase64(new Uint8Array(100))}`, // unknown discriminator
      `Program data: ${encodeBase64(Uint8Array.from(encodePoolEvent(failed), (b, i) => (i === 128 ? 7 : b)))}`, // reason 7
      "Program data: ePg9Ux+Oa5A=", // 8 bytes: a discriminator and nothing
      42,
      null,
      `${PROGRAM} success`,
      DEPOSIT_LINE,
    ];
    expect(decodePoolEventLogs(logs as string[], PROGRAM)).toEqual([deposit]);
    expect(decodePoolEventLogs(null)).toEqual([]);
    expect(decodePoolEventLogs(undefined, PROGRAM)).toEqual([]);
  });

  it("an event CPI's data is Anchor's EVENT_IX_TAG (sha256('anchor:event')[0..8]) then the event's bytes, and decodes back", () => {
    expect(toHex(EVENT_IX_TAG)).toBe("e445a52e51cb9a1d");
    for (const e of [deposit, failed, withdraw, revert]) {
      const data = encodePoolEventInstruction(e);
      expect(toHex(data)).toBe("e445a52e51cb9a1d" + toHex(encodePoolEvent(e)));
      expect(decodePoolEventInstruction(data)).toEqual(e);
    }
  });

  it("decodePoolEventInstruction: null without the tag, for a log's bytes, a truncated event or an unknown discriminator", () => {
    const data = encodePoolEventInstruction(deposit);
    expect(decodePoolEventInstruction(encodePoolEvent(deposit))).toBeNull();
    expect(decodePoolEventInstruction(data.subarray(0, data.length - 1))).toBeNull();
    expect(decodePoolEventInstruction(new Uint8Array([...data, 0]))).toBeNull();
    expect(decodePoolEventInstruction(EVENT_IX_TAG.slice())).toBeNull();
    const unknown = data.slice();
    unknown[8] = unknown[8]! ^ 1;
    expect(decodePoolEventInstruction(unknown)).toBeNull();
    expect(decodePoolEventInstruction(new Uint8Array(0))).toBeNull();
  });
});
