import { describe, expect, it } from "vitest";
import { byteArrayJson, JsonBytes } from "./respond";

describe("JSON built without JSON.stringify", () => {
  it("JsonBytes writes byte arrays exactly as JSON.stringify does, growing past its first buffer", () => {
    const nodes = Array.from({ length: 40 }, (_, k) => Uint8Array.from({ length: 32 }, (_, i) => (i * 37 + k * 11) % 256));
    const out = new JsonBytes(64).text('{"path":[');
    nodes.forEach((n, i) => (i ? out.text(",") : out).bytes(n));
    const text = out.text("]}").done().toString("latin1");
    expect(text).toBe(JSON.stringify({ path: nodes.map((n) => Array.from(n)) }));
    expect(JSON.parse(text)).toEqual({ path: nodes.map((n) => Array.from(n)) });
  });

  it("byteArrayJson matches JSON.stringify for every byte value", () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    expect(byteArrayJson(all)).toBe(JSON.stringify(Array.from(all)));
    expect(byteArrayJson(new Uint8Array(0))).toBe("[]");
  });
});
