/**
 * The one rule for a URL that is logged or answered (start-up lines, /health
 * detail, admin settings, errors): its origin only. Providers put API keys in
 * the path (`/v2/<key>`) or the query, and credentials in the user info, so
 * anything after the origin is shown as `/…`.
 */
export function redactUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return "(not a URL)";
  }
  if (u.origin === "null") return "(not a URL)";
  return u.pathname.length > 1 || u.search !== "" || u.hash !== "" ? `${u.origin}/…` : u.origin;
}
