import { desktopBridge } from "./bridge";

/**
 * Where the relay API is. In the desktop app main says (it started the server); in a
 * browser the console is served by the relay itself, so it is the page's origin.
 * Never taken from the URL or storage: the console will carry the operator token.
 */
export async function resolveApiBase(): Promise<string> {
  const bridge = desktopBridge();
  const base = bridge ? await bridge.getApiBase() : window.location.origin;
  return base.replace(/\/+$/, "");
}
