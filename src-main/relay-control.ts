import { createServerHost, type ServerHost } from "./server-host";

export type RelayPhase = "stopped" | "starting" | "running" | "stopping";

/**
 * The operator's start/stop of the in-process relay (tray and menu). Each run
 * is its own ServerHost (start once, stop once); `close()` is the final stop on
 * quit, after which nothing starts again.
 */
export interface RelayController<T> {
  phase(): RelayPhase;
  /** The running relay, undefined otherwise. */
  current(): T | undefined;
  /** The last start's error, cleared by the next start. */
  lastError(): string | null;
  start(): Promise<T>;
  stop(): Promise<void>;
  close(): Promise<void>;
  onChange(listener: (phase: RelayPhase) => void): () => void;
}

export function createRelayController<T extends { stop(): Promise<void> }>(start: () => Promise<T>): RelayController<T> {
  let host: ServerHost<T> | undefined;
  let phase: RelayPhase = "stopped";
  let closed = false;
  let error: string | null = null;
  let stopping: Promise<void> = Promise.resolve();
  const listeners = new Set<(p: RelayPhase) => void>();
  const set = (p: RelayPhase) => {
    phase = p;
    for (const l of listeners) l(p);
  };

  const stop = (): Promise<void> => {
    const h = host;
    if (!h) return stopping;
    host = undefined;
    set("stopping");
    stopping = h.stop().finally(() => set("stopped"));
    return stopping;
  };

  return {
    phase: () => phase,
    current: () => host?.current(),
    lastError: () => error,
    async start() {
      if (closed) throw new Error("the app is quitting: the relay does not start again");
      await stopping; // a start right after a stop waits for the data dir to be released
      if (host) return host.start();
      const h = createServerHost(start);
      host = h;
      error = null;
      set("starting");
      try {
        const running = await h.start();
        if (host === h) set("running");
        return running;
      } catch (e) {
        if (host === h) host = undefined;
        error = e instanceof Error ? e.message : String(e);
        set("stopped");
        throw e;
      }
    },
    stop,
    close() {
      closed = true;
      return stop();
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
