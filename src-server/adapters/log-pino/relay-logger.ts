/**
 * Structured logs (docs/operations.md, "Logs"): one JSON object per line
 * (pino) to stdout and to <dataDir>/logs/relay.log, rotated by size
 * (relay.log.1 … relay.log.N). Every message is scrubbed before it is
 * written: URLs are cut to their origin (RPC and webhook URLs carry keys in
 * their path or query) and the configured secrets are replaced. Lines about
 * one relay (its state changes, and any line starting `relay <id>`) carry its
 * `relayId` and the last ones are kept in memory for the console's Relay
 * detail.
 */
import { chmodSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import pino, { type DestinationStream, type Logger } from "pino";
import { redactUrl } from "../../../src-shared/redact-url";

export interface RelayLoggerOptions {
  /** <dataDir>/logs/relay.log when set. */
  dir: string | null;
  maxFileBytes: number;
  maxFiles: number;
  /** Where lines go besides the file: stdout (headless), or the host's own log function (desktop) which gets the message only. */
  console: "stdout" | ((msg: string) => void) | null;
  /** Strings never written (operator token, API keys, webhook URL): replaced with [redacted]. */
  secrets: readonly string[];
}

export interface LogEntry {
  time: number;
  level: "info" | "warn" | "error";
  msg: string;
  [field: string]: unknown;
}

/**
 * Lines handed to a destination once per event-loop turn instead of one
 * write each: at thousands of requests a second, a write per line (each
 * through libuv's thread pool, to two destinations) cost a sixth of a
 * request's CPU. Nothing waits for a timer, so an idle relay's lines appear
 * at once.
 */
class TickBatched {
  private pending = "";
  private queued = false;

  constructor(private readonly sink: { write(chunk: string): unknown }) {}

  write(chunk: string): void {
    this.pending += chunk;
    if (!this.queued) {
      this.queued = true;
      setImmediate(this.drain);
    }
  }

  /** Hands what is pending to the destination now (before a rotation, a direct write or close). */
  readonly drain = (): void => {
    this.queued = false;
    if (this.pending === "") return;
    const chunk = this.pending;
    this.pending = "";
    this.sink.write(chunk);
  };
}

const RELAY_LINE = /^relay ([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b/;
const URL_IN_TEXT = /\b(?:https?|wss?):\/\/[^\s"'<>)\]]+/g;
const PER_RELAY = 100;
const RELAYS_KEPT = 2000;

/** A message as it may be written: URLs as origins, secrets replaced. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text.replace(URL_IN_TEXT, (u) => redactUrl(u));
  for (const s of secrets) if (s.length >= 8) out = out.split(s).join("[redacted]");
  return out;
}

/**
 * A file that moves to .1 (and .1 to .2, …) once it reaches maxBytes; the
 * oldest beyond maxFiles is deleted. Writes are asynchronous (sonic-boom, as
 * pino's own destination): a request never waits for the disk; close()
 * flushes what is buffered.
 */
export class RotatingFile implements DestinationStream {
  private readonly sink: ReturnType<typeof pino.destination>;
  private readonly batch: TickBatched;
  private size: number;

  constructor(
    private readonly file: string,
    private readonly maxBytes: number,
    private readonly maxFiles: number,
  ) {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    // 0700 and 0600 whoever made them (docs/security.md, "Secrets and files").
    chmodSync(path.dirname(file), 0o700);
    this.size = existsSync(file) ? statSync(file).size : 0;
    this.sink = pino.destination({ dest: file, sync: false, mode: 0o600, append: true });
    this.batch = new TickBatched(this.sink);
    if (existsSync(file)) chmodSync(file, 0o600);
  }

  write(chunk: string): void {
    const bytes = Buffer.byteLength(chunk);
    if (this.size > 0 && this.size + bytes > this.maxBytes) this.rotate();
    this.batch.write(chunk);
    this.size += bytes;
  }

  private rotate(): void {
    // The lines before the rotation belong to the old file.
    this.batch.drain();
    const oldest = `${this.file}.${this.maxFiles}`;
    if (existsSync(oldest)) rmSync(oldest);
    for (let i = this.maxFiles - 1; i >= 1; i--) if (existsSync(`${this.file}.${i}`)) renameSync(`${this.file}.${i}`, `${this.file}.${i + 1}`);
    // Lines still buffered land in the renamed file (they were written before the rotation).
    if (existsSync(this.file)) renameSync(this.file, `${this.file}.1`);
    this.sink.reopen();
    this.size = 0;
  }

  /** Resolves once everything buffered is written and the file is closed. */
  close(): Promise<void> {
    this.batch.drain();
    return new Promise((resolve) => {
      this.sink.once("close", () => resolve());
      this.sink.end();
    });
  }
}

/**
 * The generated operator token's one-time notice (services/admin/operator-token.ts):
 * from its "OPERATOR TOKEN:" line to the closing rule it goes to the terminal
 * only, never to the log file (the token must not rest on disk).
 */
const NOTICE_START = /^OPERATOR TOKEN: /;
const NOTICE_END = /^={20,}$/;

export class RelayLogger {
  private readonly pino: Logger;
  private readonly terminal: Logger | null;
  private readonly stdoutSink: ReturnType<typeof pino.destination> | null;
  private readonly stdout: TickBatched | null;
  private inNotice = false;
  private readonly file: RotatingFile | null;
  private readonly byRelay = new Map<string, LogEntry[]>();

  constructor(private readonly opts: RelayLoggerOptions) {
    this.file = opts.dir ? new RotatingFile(path.join(opts.dir, "relay.log"), opts.maxFileBytes, opts.maxFiles) : null;
    const streams: pino.StreamEntry[] = [];
    if (this.file) streams.push({ stream: this.file });
    // Asynchronous (a request never waits for stdout); flushed by close().
    this.stdoutSink = opts.console === "stdout" ? pino.destination({ dest: 1, sync: false }) : null;
    this.stdout = this.stdoutSink ? new TickBatched(this.stdoutSink) : null;
    if (this.stdout) streams.push({ stream: this.stdout });
    const options: pino.LoggerOptions = { base: null, timestamp: pino.stdTimeFunctions.epochTime, formatters: { level: (label) => ({ level: label }) } };
    this.pino = pino(options, pino.multistream(streams));
    this.terminal = opts.console === "stdout" ? pino(options, pino.destination({ dest: 1, sync: true })) : null;
  }

  /** A plain line (the `log(line)` every part of the relay uses). */
  line = (msg: string): void => {
    if (this.inNotice || NOTICE_START.test(msg)) {
      this.inNotice = !NOTICE_END.test(msg);
      if (typeof this.opts.console === "function") this.opts.console(msg);
      else {
        // The notice is written at once; the lines before it go first.
        this.flushStdoutSync();
        this.terminal?.info(msg);
      }
      return;
    }
    const m = RELAY_LINE.exec(msg);
    this.event(m ? { relayId: m[1] } : {}, msg);
  };

  /** A line with fields; strings in fields are scrubbed like the message. */
  event(fields: Record<string, unknown>, msg: string, level: LogEntry["level"] = "info"): void {
    const clean: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(fields)) clean[k] = typeof v === "string" ? scrub(v, this.opts.secrets) : v;
    const text = scrub(msg, this.opts.secrets);
    this.pino[level](clean, text);
    if (typeof this.opts.console === "function") this.opts.console(text);
    const relayId = typeof clean.relayId === "string" ? clean.relayId : null;
    if (relayId) this.keep(relayId, { time: Date.now(), level, msg: text, ...clean });
  }

  /** The last lines about one relay, oldest first. */
  linesOf(relayId: string): LogEntry[] {
    return [...(this.byRelay.get(relayId) ?? [])];
  }

  private flushStdoutSync(): void {
    this.stdout?.drain();
    try {
      this.stdoutSink?.flushSync();
    } catch {
      // A write in flight finishes by itself.
    }
  }

  private keep(relayId: string, e: LogEntry): void {
    let list = this.byRelay.get(relayId);
    if (!list) {
      list = [];
      this.byRelay.set(relayId, list);
      if (this.byRelay.size > RELAYS_KEPT) this.byRelay.delete(this.byRelay.keys().next().value as string);
    }
    list.push(e);
    if (list.length > PER_RELAY) list.shift();
  }

  /** Writes out what is buffered (stdout and the file) and closes the file. */
  async close(): Promise<void> {
    this.flushStdoutSync();
    await this.file?.close();
  }
}
