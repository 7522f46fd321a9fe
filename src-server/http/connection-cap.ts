import type { Server } from "node:http";
import type { Socket } from "node:net";
import { clientKeyOf } from "./middleware/client-address";

/**
 * At most `maxPerIp` open connections per client address (docs/security.md,
 * "Connections"); a connection over the cap is destroyed as it is accepted,
 * before a byte of it is read. The address is the socket's (a proxy in front
 * of the relay is one address), an IPv6 client counted by its /64.
 */
export function capConnectionsPerIp(server: Server, maxPerIp: number): { open(ip: string): number } {
  const open = new Map<string, number>();
  server.on("connection", (socket: Socket) => {
    const key = clientKeyOf(socket.remoteAddress);
    const n = open.get(key) ?? 0;
    if (n >= maxPerIp) {
      socket.destroy();
      return;
    }
    open.set(key, n + 1);
    socket.once("close", () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left <= 0) open.delete(key);
      else open.set(key, left);
    });
  });
  return { open: (ip) => open.get(clientKeyOf(ip)) ?? 0 };
}
