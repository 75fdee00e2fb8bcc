// A real SDK Client spawning `tessera mcp` over stdio: the tools, their results compared with the
// library's as canonical JSON, and bad input answered with coded tool errors while the server keeps serving.
import { spawn } from "node:child_process";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listActions, verifyClaims } from "../../src/actions/index.js";
import { canonicalJson } from "../../src/core/index.js";
import { LIMITS } from "../../src/mcp/limits.js";
import { CLAIMS } from "./fixtures.js";
import { call, cliPath, errorCode, root, type Session, stdioSession } from "./helpers.js";

let s: Session;

beforeAll(async () => {
  s = await stdioSession([]);
});

afterAll(async () => {
  await s?.close();
});

describe("tessera mcp over stdio", () => {
  it("lists every tool with a strict input schema, an output schema and a read-only description", async () => {
    const { tools } = await s.client.listTools();
    expect(tools.map((t) => t.name)).toStrictEqual([
      "list_actions",
      "draft_action",
      "ground",
      "verify_claims",
      "check_tool_call",
      "grade_answer",
    ]);
    for (const t of tools) {
      expect(t.inputSchema.type).toBe("object");
      expect((t.inputSchema as { additionalProperties?: unknown }).additionalProperties).toBe(false);
      expect(t.outputSchema?.type).toBe("object");
      expect(t.description).toMatch(/Returns /);
      expect(t.description).toMatch(/[Nn]othing is executed/);
      expect(t.annotations?.readOnlyHint).toBe(true);
      expect(t.annotations?.destructiveHint).toBe(false);
    }
  });

  it("publishes the tool definitions pinned in tools-list.json (a schema change is a visible diff)", async () => {
    const { tools } = await s.client.listTools();
    await expect(`${JSON.stringify(tools, null, 2)}\n`).toMatchFileSnapshot("./tools-list.json");
  });

  it("logs to stderr only", () => {
    expect(s.stderr()).toMatch(/^tessera mcp: serving .*verify_claims.* over stdio$/m);
  });

  it("verify_claims gives the library's result, byte-identical as canonical JSON, and a text rendering", async () => {
    const r = await call(s.client, "verify_claims", { claims: CLAIMS });
    expect(r.isError).toBeFalsy();
    const lib = verifyClaims(CLAIMS);
    expect(canonicalJson(r.structuredContent)).toBe(canonicalJson(lib));
    // the fixture really has both verdicts, so the comparison is not vacuous
    expect(lib.claims.map((c) => c.supported)).toEqual([true, false, true, false]);
    expect(r.content[0]).toMatchObject({ type: "text", text: expect.stringMatching(/^2 of 4 claims supported\n/) });
  });

  it("list_actions gives the catalog", async () => {
    const r = await call(s.client, "list_actions", {});
    expect(canonicalJson(r.structuredContent)).toBe(canonicalJson({ actions: listActions() }));
    expect(r.content[0]).toMatchObject({ type: "text", text: expect.stringContaining("incident: ") });
  });
});

describe("oversized input over the wire", () => {
  // literal examples live in specs/mcp-server.md (test/mcp/spec.test.ts); these are generated
  const cases: [string, string, Record<string, unknown>, string, RegExp][] = [
    [
      "an oversized string",
      "verify_claims",
      { claims: [{ text: "x".repeat(LIMITS.text + 1), support: [] }] },
      "input_too_large",
      new RegExp(`^claims\\[0\\]\\.text: string longer than ${LIMITS.text} characters$`),
    ],
    [
      "an oversized question",
      "ground",
      { question: `why did run ${"7".repeat(LIMITS.question)} fail?` },
      "input_too_large",
      /^question: string longer than 2000 characters$/,
    ],
    [
      "too many items",
      "verify_claims",
      { claims: Array.from({ length: LIMITS.claims + 1 }, () => ({ text: "a", support: [] })) },
      "input_too_large",
      /^claims: more items than 1000$/,
    ],
    [
      "too many call arguments",
      "check_tool_call",
      {
        tool: "t",
        arguments: Object.fromEntries(Array.from({ length: LIMITS.argumentKeys + 1 }, (_, i) => [`a${i}`, i])),
      },
      "input_too_large",
      /^arguments: more than 256 keys$/,
    ],
    [
      "too deep a value",
      "verify_claims",
      { claims: nest(LIMITS.depth + 1) },
      "input_too_large",
      /^arguments nest deeper than 32 levels$/,
    ],
    [
      "too much text in one request",
      "grade_answer",
      {
        answer: "a",
        evidence: Array.from({ length: 5 }, (_, i) => ({
          id: `d${i}`,
          revision: "1",
          text: "y".repeat(LIMITS.totalChars / 4),
        })),
      },
      "input_too_large",
      /^arguments hold more than 4000000 characters of text$/,
    ],
    ["an unknown tool", "execute_shell", { command: "rm -rf /" }, "unknown_tool", /^unknown tool `execute_shell`$/],
  ];
  for (const [what, tool, args, code, message] of cases) {
    it(`${what} is a tool error with code ${code}, and the next request still works`, async () => {
      const r = await call(s.client, tool, args);
      expect(r.isError).toBe(true);
      expect(errorCode(r)).toBe(code);
      expect((r._meta?.["tessera/error"] as { message: string }).message).toMatch(message);
      expect(r.structuredContent).toBeUndefined();
      const next = await call(s.client, "verify_claims", { claims: CLAIMS.slice(0, 1) });
      expect(next.isError).toBeFalsy();
      expect(next.structuredContent).toMatchObject({ all_supported: true });
    });
  }
});

describe("malformed tools/call params over the wire", () => {
  // not the tool's arguments (those are coded tool errors) but the request itself: the protocol's
  // invalid-params error with one line naming the field, never the SDK's internal-error dump
  const cases: [string, unknown, string][] = [
    ["a name that is not a string", { name: 5 }, "`name` must be a string, not a number"],
    ["no name", { arguments: {} }, "`name` is missing"],
    [
      "arguments that are a string",
      { name: "verify_claims", arguments: "claims" },
      "`arguments` must be an object, not a string",
    ],
    [
      "arguments that are a list",
      { name: "verify_claims", arguments: [1] },
      "`arguments` must be an object, not an array",
    ],
    ["no params at all", undefined, "expected an object with the tool's `name`, got nothing"],
  ];
  for (const [what, params, message] of cases) {
    it(`${what} is -32602 "${message}", and the next request still works`, async () => {
      const request =
        params === undefined ? { method: "tools/call" } : { method: "tools/call", params: params as { name: string } };
      const err = await s.client.request(request, CallToolResultSchema).then(
        () => null,
        (e: unknown) => e as { code: number; message: string },
      );
      expect(err).toMatchObject({ code: -32602, message: `MCP error -32602: invalid tools/call params: ${message}` });
      expect((await call(s.client, "verify_claims", { claims: CLAIMS.slice(0, 1) })).structuredContent).toMatchObject({
        all_supported: true,
      });
    });
  }
});

describe("the stdio stream", () => {
  it("carries only JSON-RPC on stdout, answers malformed lines as JSON-RPC says, keeps serving, and exits 0 when the input ends", async () => {
    const child = spawn(process.execPath, [cliPath, "mcp"], { cwd: root, stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (err += c.toString("utf8")));
    const lines = [
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
    ].map((m) => JSON.stringify(m));
    child.stdin.write(`${lines.join("\n")}\nthis is not json\n\r\n`);
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: ["verify_claims"] })}\n`,
    );
    child.stdin.write(`${JSON.stringify({ id: 4, method: "tools/list" })}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 5, result: "a response with no request" })}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" })}\n`);
    child.stdin.end();
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(0);
    type Message = { id?: number | null; result?: { tools?: unknown[] }; error?: { code: number; message: string } };
    const messages = out
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as Message);
    const byId = (id: number | null) => messages.filter((m) => m.id === id);
    expect(messages).toHaveLength(5); // initialize, tools/list and three refusals; the blank line and the stray response get none
    expect(byId(1)[0]?.result).toBeDefined();
    expect(byId(2)[0]?.result?.tools?.length).toBeGreaterThan(0);
    expect(byId(null)[0]?.error).toMatchObject({ code: -32700, message: expect.stringMatching(/^parse error: /) });
    expect(byId(3)[0]?.error).toEqual({ code: -32600, message: "invalid request: `params` must be an object" });
    expect(byId(4)[0]?.error).toEqual({ code: -32600, message: 'invalid request: `jsonrpc` must be "2.0"' });
    expect(err).toMatch(/serving/);
    expect(err).toMatch(/^tessera mcp: parse error: the line is not valid JSON$/m); // each malformed line is also reported to the operator
    expect(err).toMatch(/^tessera mcp: invalid request: `params` must be an object$/m);
  });
});

describe("the end of input", () => {
  it("answers a check still running when the client closes stdin, then exits 0", async () => {
    const child = spawn(process.execPath, [cliPath, "mcp", "--policy", "examples/refunds/policy.yaml"], {
      cwd: root,
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, TESSERA_CONTEXT_JSON: JSON.stringify({ customer_id: "c-1" }) },
    });
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString("utf8")));
    child.stderr.resume();
    const messages = [
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: {
          name: "check_tool_call",
          arguments: { tool: "refund_order", arguments: { order_id: 1001, amount_cents: 10 } },
        },
      },
    ];
    child.stdin.end(`${messages.map((m) => JSON.stringify(m)).join("\n")}\n`);
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(0);
    const replies = out
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as { id: number; result: { structuredContent?: { decision: string } } });
    expect(replies.map((r) => r.id)).toEqual([1, 2]);
    expect(replies[1]?.result.structuredContent?.decision).toBe("allow");
  });
});

function nest(depth: number): unknown {
  let v: unknown = "x";
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}
