// Random arguments for every tool (fast-check), through a real SDK client and server linked in
// process: every answer is a contract result or a tool error with a known code — never an
// internal_error, never a thrown request — and the server answers a valid call afterwards.
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTesseraServer } from "../../src/mcp/index.js";
import { root } from "./helpers.js";

const KNOWN = new Set(["invalid_arguments", "input_too_large", "unknown_action", "invalid_input"]);
let dir = "";
let server: McpServer;
let client: Client;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tessera-mcp-pbt-"));
  cpSync(join(root, "test", "mcp", "workspace"), join(dir, "ws"), { recursive: true });
  server = await createTesseraServer({
    workspace: join(dir, "ws"),
    policy: join(root, "examples", "refunds", "policy.yaml"),
    context: { customer_id: "c-1" },
  });
  client = new Client({ name: "pbt", version: "0" });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  await client.connect(a);
  await client.listTools(); // so the client validates structuredContent against each output schema
});

afterAll(async () => {
  await client?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const value = fc.jsonValue({ maxDepth: 4 });
const record = fc.record(
  {
    id: fc.oneof(fc.string(), value),
    source: fc.oneof(fc.string(), value),
    locator: fc.oneof(fc.record({ kind: fc.string(), parts: fc.array(fc.tuple(fc.string(), fc.string())) }), value),
    text: fc.oneof(fc.string(), value),
  },
  { requiredKeys: [] },
);

/** Plausible and implausible arguments per tool: right keys with wrong or random values, and noise. */
const ARGS: Record<string, fc.Arbitrary<unknown>> = {
  list_actions: fc.oneof(fc.constant({}), fc.dictionary(fc.string(), value)),
  draft_action: fc.record(
    {
      action: fc.oneof(fc.constantFrom("incident", "pr_summary"), fc.string(), value),
      question: fc.oneof(fc.string(), fc.constantFrom("why did run 7001 fail?", "summarize PR 41"), value),
    },
    { requiredKeys: [] },
  ),
  ground: fc.record(
    { question: fc.oneof(fc.string(), fc.constantFrom("why did run 7001 fail?", "run 6990", "PR 41", "#41"), value) },
    { requiredKeys: [] },
  ),
  verify_claims: fc.record(
    {
      claims: fc.oneof(
        fc.array(
          fc.record(
            { text: fc.oneof(fc.string(), value), support: fc.oneof(fc.array(record, { maxLength: 3 }), value) },
            { requiredKeys: [] },
          ),
          { maxLength: 4 },
        ),
        value,
      ),
    },
    { requiredKeys: [] },
  ),
  check_tool_call: fc.record(
    {
      tool: fc.oneof(fc.constantFrom("refund_order", "cancel_order"), fc.string(), value),
      arguments: fc.oneof(fc.record({ order_id: value, amount_cents: value }, { requiredKeys: [] }), value),
    },
    { requiredKeys: [] },
  ),
  grade_answer: fc.record(
    {
      answer: fc.oneof(fc.string(), value),
      evidence: fc.oneof(
        fc.array(fc.record({ id: fc.string(), revision: fc.string(), text: fc.string() }, { requiredKeys: [] }), {
          maxLength: 3,
        }),
        value,
      ),
      evaluator: fc.oneof(
        fc.record(
          { name: fc.constantFrom("builtin", "bedrock", "azure", "generic"), threshold: fc.double() },
          { requiredKeys: ["name"] },
        ),
        value,
      ),
      result: value,
    },
    { requiredKeys: [] },
  ),
};

describe("random arguments over the protocol", () => {
  for (const [tool, args] of Object.entries(ARGS)) {
    it(`${tool}: a contract result or a known tool error, every time`, async () => {
      await fc.assert(
        fc.asyncProperty(args, async (a) => {
          const r = (await client.callTool({ name: tool, arguments: a as Record<string, unknown> })) as CallToolResult;
          if (r.isError === true) {
            const code = (r._meta?.["tessera/error"] as { code: string } | undefined)?.code ?? "<none>";
            expect(KNOWN.has(code), `${code}: ${JSON.stringify(r.content)}`).toBe(true);
            expect(r.structuredContent).toBeUndefined();
          } else {
            expect(typeof r.structuredContent).toBe("object");
          }
        }),
        { numRuns: 150 },
      );
      const ok = (await client.callTool({ name: "list_actions", arguments: {} })) as CallToolResult;
      expect(ok.isError).toBeFalsy();
    });
  }
});
