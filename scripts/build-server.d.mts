// Types of scripts/build-server.mjs for the TypeScript that imports it (tests, bench).
export const SERVER_OUT_DIR: string;
export const SERVER_ENTRY: string;
export function newestMtime(paths: string[]): number;
export function serverIsStale(): boolean;
export function serverWorkerEntries(): Record<string, string>;
export function buildServer(opts?: { log?: (line: string) => void }): Promise<void>;
export function ensureServerBuilt(opts?: { log?: (line: string) => void }): Promise<boolean>;
