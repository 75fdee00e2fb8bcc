/**
 * stdio for the MCP server: protocol messages only on stdout (anything else would corrupt the
 * stream), everything else on stderr.
 * @module
 */
import type { Readable, Writable } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { buildServer } from "./server.js";
import type { Services } from "./tools.js";

/** Serve `services` over stdio until the input ends or the transport closes. */
export async function serveStdio(services: Services, streams: { stdin: Readable; stdout: Writable }): Promise<void> {
  const server = buildServer(services);
  const transport = new StdioServerTransport(streams.stdin, streams.stdout);
  const done = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
    streams.stdin.once("end", () => resolve());
    streams.stdin.once("close", () => resolve());
  });
  await server.connect(transport);
  await done;
  await server.close();
}
