#!/usr/bin/env node
// Re-record cases/check/mcp/orders-mcp.recorded.json: the real MCP fixture server
// (test/fixtures/mcp-orders-server.mjs, built with the SDK, over stdio) queried through the real
// MCP adapter. Run `npm run build && node cases/check/mcp/record.mjs`.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { recordCases } from "../record-lib.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const server = join(here, "../../../test/fixtures/mcp-orders-server.mjs");
const files = await recordCases(here, { "orders-mcp": { command: process.execPath, args: [server] } });
for (const f of files) process.stdout.write(`wrote ${f}\n`);
