/**
 * stdio for the MCP server: protocol messages only on stdout (anything else would corrupt the
 * stream), everything else on stderr.
 * @module
 */
import type { Readable, Writable } from "node:stream";
import { buildServer } from "./server.js";
import { StdioLineTransport } from "./stdio-transport.js";
import type { Services } from "./tools.js";

/**
 * Serve `services` over stdio until the input ends or the transport closes; calls still running
 * when the input ends are answered before the server closes. Protocol errors (a malformed line,
 * answered on stdout) are reported on `stderr` when given.
 */
export async function serveStdio(
  services: Services,
  streams: { stdin: Readable; stdout: Writable; stderr?: Writable },
): Promise<void> {
  const inflight = new Set<Promise<unknown>>();
  const server = buildServer(services, (call) => {
    inflight.add(call);
    void call.finally(() => inflight.delete(call));
  });
  const transport = new StdioLineTransport(streams.stdin, streams.stdout);
  server.server.onerror = (err) => void streams.stderr?.write(`tessera mcp: ${err.message}\n`);
  const done = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
    streams.stdin.once("end", () => resolve());
    streams.stdin.once("close", () => resolve());
    // the client went away mid-write (EPIPE): nobody is left to answer
    streams.stdout.once("error", () => resolve());
  });
  await server.connect(transport);
  await done;
  while (inflight.size > 0) await Promise.allSettled([...inflight]);
  // the SDK sends a result after its handler settles: let that write happen
  await new Promise((resolve) => setImmediate(resolve));
  await server.close();
}
