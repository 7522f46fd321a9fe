/**
 * The Content-Security-Policy header of the console's documents: its own
 * scripts, styles and API only, never framed. One policy, sent by the relay
 * under /console (src-server/http/middleware/loopback-safety.ts) and added by
 * the desktop shell to what its window loads (src-main/security.ts). The
 * built index.html also carries a <meta> policy (vite.console.config.ts),
 * which cannot hold frame-ancestors; policies intersect.
 */
export const CONSOLE_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join("; ");
