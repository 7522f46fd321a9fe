/**
 * cpi-proxy (cpi_proxy.c): a test program the local validator loads on request
 * (`sbfPrograms`), never by default. It invokes the instruction it carries, so
 * a test can make any instruction an inner (CPI) one, and can first log
 * enough lines of its own to push the invoked program's log lines (its
 * events) past the runtime's log limit. Built like the repo's programs (clang
 * with tools/sbf's flags and linker); cpi-proxy.test.ts rebuilds it and
 * compares the committed bytes.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PublicKey, TransactionInstruction } from "@solana/web3.js";
import { Buffer } from "buffer";
import { buildProgram } from "../../../tools/sbf/compile";
import type { SbfProgram } from "../../ledger/svm";

export const CPI_PROXY_PROGRAM_ID = "CpiProxy111111111111111111111111111111111111";
const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "../../..");
export const CPI_PROXY_SO = path.join(here, "cpi-proxy.so");
export const CPI_PROXY_SOURCE = path.posix.join("src-localnet", "programs", "cpi-proxy", "cpi_proxy.c");
/** The bytes of one padding line the proxy logs (without the runtime's "Program log: " prefix). */
export const CPI_PROXY_LINE_BYTES = 96;

export const cpiProxyProgram = (): SbfProgram => ({ id: CPI_PROXY_PROGRAM_ID, so: CPI_PROXY_SO });

/** `inner`, invoked by the proxy after `logLines` lines of its own. */
export function cpiProxyInstruction(inner: TransactionInstruction, logLines = 0): TransactionInstruction {
  if (!Number.isInteger(logLines) || logLines < 0 || logLines > 0xffff) throw new RangeError(`logLines must be a u16, got ${logLines}`);
  return new TransactionInstruction({
    programId: new PublicKey(CPI_PROXY_PROGRAM_ID),
    keys: [{ pubkey: inner.programId, isSigner: false, isWritable: false }, ...inner.keys],
    data: Buffer.concat([Buffer.from([logLines & 0xff, logLines >> 8]), inner.data]),
  });
}

/** The program's bytes built from its source now (clang required). */
export function buildCpiProxy(clang: string): Uint8Array {
  const objDir = mkdtempSync(path.join(tmpdir(), "cpi-proxy-"));
  try {
    return buildProgram(clang, { cwd: repo, sources: [CPI_PROXY_SOURCE], includeDirs: ["programs/include"], objDir });
  } finally {
    rmSync(objDir, { recursive: true, force: true });
  }
}
