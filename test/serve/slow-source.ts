// An HTTP Source the test holds: each GET /items/<id> waits until the test releases it, so a
// request can be kept in flight for as long as a test needs (no timer decides anything).
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

export interface SlowSource {
  readonly port: number;
  /** Resolves once `n` requests for items have arrived in all. */
  arrived(n: number): Promise<void>;
  /** Answer every waiting request, and every later one at once. */
  release(): void;
  close(): Promise<void>;
}

export async function startSlowSource(port = 0): Promise<SlowSource> {
  const waiting: ServerResponse[] = [];
  const watchers: { n: number; wake: () => void }[] = [];
  let count = 0;
  let released = false;
  const answer = (res: ServerResponse) =>
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ok: true }));
  const server: Server = createServer((req, res) => {
    if (req.url === "/") return answer(res); // a readiness probe: answered, not counted
    count += 1;
    for (const w of watchers.filter((x) => count >= x.n)) {
      watchers.splice(watchers.indexOf(w), 1);
      w.wake();
    }
    if (released) answer(res);
    else waiting.push(res);
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    arrived: (n) => (count >= n ? Promise.resolve() : new Promise((wake) => watchers.push({ n, wake }))),
    release() {
      released = true;
      for (const res of waiting.splice(0)) answer(res);
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A policy whose tool `slow` grounds `id` against the slow source at `port`. */
export function writeSlowPolicy(dir: string, port: number): string {
  const file = join(dir, "slow.yaml");
  writeFileSync(
    file,
    [
      "version: 1",
      "sources:",
      `  api: { kind: http, base_url: "http://127.0.0.1:${port}", timeout_ms: 60000 }`,
      '  unused: { kind: http, base_url: "http://127.0.0.1:9", timeout_ms: 1000 }',
      "defaults: { unlisted_tools: block }",
      "tools:",
      "  slow:",
      "    arguments:",
      "      id:",
      "        ground:",
      "          checks:",
      "            - source: api",
      "              path: /items/{value}",
      "              match: [{ column: ok, value: true }]",
      "",
    ].join("\n"),
  );
  return file;
}
