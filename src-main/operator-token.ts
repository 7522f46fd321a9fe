import { generateOperatorToken } from "../src-server/services/admin/operator-token";
import type { SecretStore } from "../src-server/ports/secret-store";

/** Where the desktop host keeps the console token itself (encrypted), apart from the server's hash. */
export const DESKTOP_TOKEN_SECRET = "console-operator-token";

/**
 * The operator token the desktop app signs its own window in with:
 * RELAY_OPERATOR_TOKEN when set; otherwise, when keys are encrypted at rest,
 * one generated once and kept encrypted with safeStorage. With no encryption
 * the host keeps nothing (a plain token file would be worse than the server's
 * hash): the server generates and prints one, and the operator types it.
 */
export function desktopOperatorToken(env: NodeJS.ProcessEnv, store: { secrets: SecretStore; encrypted: boolean } | null): string | null {
  if (env.RELAY_OPERATOR_TOKEN) return env.RELAY_OPERATOR_TOKEN;
  if (!store?.encrypted) return null;
  const saved = store.secrets.load(DESKTOP_TOKEN_SECRET);
  if (saved) return new TextDecoder().decode(saved);
  const token = generateOperatorToken();
  store.secrets.save(DESKTOP_TOKEN_SECRET, new TextEncoder().encode(token));
  return token;
}
