// StdioLineTransport over in-memory streams: lines cut anywhere across chunks give the same
// messages, and every line that is not a message gets the answer JSON-RPC 2.0 prescribes.
import { PassThrough } from "node:stream";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_LINE_BYTES, StdioLineTransport } from "../../src/mcp/stdio-transport.js";

function open() {
  const input = new PassThrough();
  const output = new PassThrough();
  const t = new StdioLineTransport(input, output);
  const messages: JSONRPCMessage[] = [];
  const errors: string[] = [];
  t.onmessage = (m) => messages.push(m);
  t.onerror = (e) => errors.push(e.message);
  let written = "";
  output.on("data", (c: Buffer) => (written += c.toString("utf8")));
  const answers = () =>
    written
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as { id: unknown; error: { code: number; message: string } });
  return { t, input, messages, errors, answers };
}

const MESSAGES: JSONRPCMessage[] = [
  { jsonrpc: "2.0", id: 1, method: "tools/list" },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  {
    jsonrpc: "2.0",
    id: "a",
    method: "tools/call",
    params: { name: "verify_claims", arguments: { claims: [{ text: "é ✓ 😀", support: [] }] } },
  },
  { jsonrpc: "2.0", id: 7, result: {} },
];

describe("StdioLineTransport", () => {
  it("reads the same messages however the bytes are cut into chunks (CRLF too)", async () => {
    const bytes = Buffer.from(`${MESSAGES.map((m) => JSON.stringify(m)).join("\r\n")}\n`, "utf8");
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 12 }),
        async (cuts) => {
          const { t, input, messages, errors } = open();
          await t.start();
          let from = 0;
          for (const at of [...cuts].sort((a, b) => a - b)) {
            input.write(bytes.subarray(from, at));
            from = at;
          }
          input.write(bytes.subarray(from));
          await new Promise((resolve) => setImmediate(resolve));
          expect(errors).toEqual([]);
          expect(messages).toEqual(MESSAGES);
          await t.close();
        },
      ),
      { numRuns: 200 },
    );
  });

  it("answers a line that is not JSON with -32700 and an invalid request with -32600, its id kept when it has one", async () => {
    const { t, input, messages, errors, answers } = open();
    await t.start();
    input.write("{oops \u001b[2J\n");
    input.write("[1,2]\n");
    input.write('{"jsonrpc":"2.0","id":9,"method":"tools/call","params":"x"}\n');
    input.write('{"jsonrpc":"2.0","id":{"n":1},"method":"tools/list"}\n');
    input.write('{"jsonrpc":"1.0","id":"q","method":"ping"}\n');
    input.write('{"jsonrpc":"2.0","id":3,"method":5}\n');
    input.write('{"jsonrpc":"2.0","id":4,"result":1,"error":{"code":1}}\n'); // a malformed response: nobody waits for an answer
    input.write("{}\n");
    input.write('{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"x","_meta":"m"}}\n');
    input.write('{"jsonrpc":"2.0","id":5}\n');
    input.write("   \n");
    input.write(`${JSON.stringify(MESSAGES[0])}\n`);
    await new Promise((resolve) => setImmediate(resolve));
    expect(messages).toEqual([MESSAGES[0]]);
    expect(answers().map((a) => [a.id, a.error.code, a.error.message])).toEqual([
      [null, -32700, "parse error: the line is not valid JSON"],
      [null, -32600, "invalid request: expected a JSON-RPC 2.0 object"],
      [9, -32600, "invalid request: `params` must be an object"],
      [null, -32600, "invalid request: `id` must be a string or an integer"],
      ["q", -32600, 'invalid request: `jsonrpc` must be "2.0"'],
      [3, -32600, "invalid request: `method` must be a string"],
      [null, -32600, 'invalid request: `jsonrpc` must be "2.0"'],
      [6, -32600, "invalid request: `params._meta` must be an object"],
      [5, -32600, "invalid request: not a JSON-RPC 2.0 request, notification or response"],
    ]);
    expect(errors).toContain(
      "invalid JSON-RPC message from the client: not a JSON-RPC 2.0 request, notification or response",
    );
    expect(errors).toHaveLength(10); // every line that was not a message, the stray response included
    await t.close();
  });

  const tooLong = {
    jsonrpc: "2.0",
    id: null,
    error: { code: -32600, message: `invalid request: a line longer than ${MAX_LINE_BYTES} bytes` },
  };

  it("skips a line longer than the limit arriving in many chunks, answering once, and reads the next line", async () => {
    const { t, input, messages, answers } = open();
    await t.start();
    const chunk = Buffer.alloc(2 ** 20, 0x61);
    for (let sent = 0; sent <= MAX_LINE_BYTES; sent += chunk.length) input.write(chunk);
    input.write(chunk);
    input.write(`\n${JSON.stringify(MESSAGES[0])}\n`);
    await new Promise((resolve) => setImmediate(resolve));
    expect(answers()).toEqual([tooLong]);
    expect(messages).toEqual([MESSAGES[0]]);
    await t.close();
  });

  it("measures a line that ends in the chunk it arrives in: one just over the limit is refused, one at it is read", async () => {
    const { t, input, messages, answers } = open();
    await t.start();
    const padded = (bytes: number) => {
      const text = JSON.stringify({ jsonrpc: "2.0", method: "notifications/x", params: { pad: "" } });
      return Buffer.from(text.replace('"pad":""', `"pad":"${"p".repeat(bytes - text.length)}"`), "utf8");
    };
    input.write(Buffer.concat([padded(MAX_LINE_BYTES + 1), Buffer.from("\n")]));
    input.write(Buffer.concat([Buffer.from("{"), Buffer.from("\n"), padded(MAX_LINE_BYTES), Buffer.from("\n")]));
    await new Promise((resolve) => setImmediate(resolve));
    expect(answers().map((a) => a.error.code)).toEqual([-32600, -32700]);
    expect(answers()[0]).toEqual(tooLong);
    expect(messages).toHaveLength(1);
    await t.close();
  });

  it("reports a handler that throws and reads the next line", async () => {
    const { t, input, messages, errors } = open();
    t.onmessage = (m) => {
      if ("id" in m && m.id === 1) throw new Error("handler failed");
      messages.push(m);
    };
    await t.start();
    input.write(`${MESSAGES.map((m) => JSON.stringify(m)).join("\n")}\n`);
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors).toEqual(["handler failed"]);
    expect(messages).toEqual(MESSAGES.slice(1));
    await t.close();
  });

  it("stops reading when closed and says so once, however often it is closed", async () => {
    const { t, input, messages } = open();
    let closed = 0;
    t.onclose = () => closed++;
    await t.start();
    await expect(t.start()).rejects.toThrow("already started");
    await t.close();
    await t.close();
    input.write(`${JSON.stringify(MESSAGES[0])}\n`);
    await new Promise((resolve) => setImmediate(resolve));
    expect(messages).toEqual([]);
    expect(closed).toBe(1);
  });
});
