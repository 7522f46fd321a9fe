/**
 * A JSON POST client for load the relay must answer one request at a time
 * (each body different, each answer checked): Node's http with a keep-alive
 * agent. fetch (undici) spent about 1 ms of CPU per request in the bench
 * process, on the same two cores as the relay it measured; this spends a
 * fraction of that, so a case measures the relay rather than its client.
 */
import http from "node:http";

export interface JsonClient {
  post(path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }>;
  close(): void;
}

export function jsonClient(baseUrl: string, maxSockets: number): JsonClient {
  const u = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  return {
    post(path, body) {
      const data = Buffer.from(JSON.stringify(body));
      return new Promise((resolve, reject) => {
        const req = http.request(
          {
            host: u.hostname,
            port: u.port,
            method: "POST",
            path,
            agent,
            headers: { "content-type": "application/json", "content-length": data.length },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (c: Buffer) => chunks.push(c));
            res.on("end", () => {
              try {
                resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown> });
              } catch (e) {
                reject(e instanceof Error ? e : new Error(String(e)));
              }
            });
            res.on("error", reject);
          },
        );
        req.on("error", reject);
        req.end(data);
      });
    },
    close: () => agent.destroy(),
  };
}
