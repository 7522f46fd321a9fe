import type { ApiClient } from "./client";

/**
 * One function per relay endpoint the console uses. Answers are checked at the edge
 * so components can trust their types; a malformed answer is an ApiError, not a crash.
 */

export async function fetchVersion(api: ApiClient, signal?: AbortSignal): Promise<string> {
  return (await api.getText("/version", { signal })).trim();
}
