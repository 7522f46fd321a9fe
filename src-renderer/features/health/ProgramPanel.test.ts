import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { AdminHealth, AdminNetworkProgram } from "../../../src-shared/api/admin";
import { ProgramPanel } from "./ProgramPanel";

const network = (name: "mainnet" | "devnet", program?: AdminNetworkProgram): AdminHealth["networks"][number] => ({
  name,
  backend: program ? "solana" : "sandbox",
  sandbox: !program,
  programId: "FJ5caa9BvE33vmuBc3zFN2JJFAvGHL8UjeQ2b8iBEqZJ",
  faults: null,
  rpcEndpoints: null,
  developmentVerifyingKey: program?.key === "development",
  ...(program ? { program } : {}),
});
const ceremony: AdminNetworkProgram = {
  key: "ceremony",
  vkeyFingerprint: "e".repeat(64),
  programHash: "c".repeat(64),
  expectedHash: "c".repeat(64),
  programId: "FJ5caa9BvE33vmuBc3zFN2JJFAvGHL8UjeQ2b8iBEqZJ",
  deployedSlot: 1234,
  upgradeAuthority: null,
  ceremony: {
    contributions: 3,
    contributors: ["ann", "bob", "cy"],
    phase1: "powersOfTau28_hez_final_16.ptau",
    beaconSlot: 1000,
    beaconBlockSlot: 1001,
    beaconBlockhash: "BLOCKHASH",
  },
  refusal: null,
  checkedAt: 0,
  readError: null,
};
const render = (networks: AdminHealth["networks"]) => renderToStaticMarkup(createElement(ProgramPanel, { networks }));

describe("the Health page's deployed program panel", () => {
  it("shows the key's fingerprint, the program hash, the contributions and the beacon of a ceremony key", () => {
    const html = render([network("mainnet", ceremony), network("devnet")]);
    expect(html).toContain("ceremony program");
    expect(html).toContain("eeeeeeeeeeeeeeee…");
    expect(html).toContain("cccccccccccccccc…");
    expect(html).toMatch(/Contributions<\/dt><dd[^>]*>3</);
    expect(html).toContain("slot 1001 (announced 1000), blockhash BLOCKHASH");
    expect(html).toContain("none (immutable)");
    expect(html).not.toContain("program-devnet");
  });

  it("names the development key as such, and a stopped network's reason", () => {
    const html = render([
      network("mainnet", { ...ceremony, key: "development", ceremony: null, programHash: "d".repeat(64), refusal: "the deployed program hashes ddd" }),
    ]);
    expect(html).toContain("development key (published seed)");
    expect(html).toContain("relays stopped");
    expect(html).toContain("the deployed program hashes ddd");
    expect(html).not.toContain("Contributions");
  });

  it("is absent when no network has a checked program (sandbox only)", () => {
    expect(render([network("devnet")])).toBe("");
  });
});
