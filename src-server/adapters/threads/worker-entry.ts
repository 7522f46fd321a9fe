/**
 * How the server starts its worker threads from sources and from its bundle. The code lives in
 * src-shared/node/worker-entry.ts, because the SDK's MSM thread (src-client/sdk/msm/msm-thread.ts)
 * starts its worker the same way; the server's callers import it from here.
 */
export { workerModule, workerSpec } from "../../../src-shared/node/worker-entry";
