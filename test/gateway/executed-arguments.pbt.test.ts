// Whenever the gateway forwards a call, the upstream receives exactly the arguments that were
// grounded, byte for byte; and it never receives a call the policy did not allow. Random argument
// objects — integers of every size written as raw JSON number literals (beyond 2^53 too), numeric
// spellings (`"1001."`, `"+1001"`, `"01001"`, `" 1001"`, `"1.001e3"`), strings with invisible
// characters, nested objects and arrays, shadow and undeclared keys, a key twice — go as raw
// JSON-RPC lines through the gateway's own stdio transport, grounded by the real engine over a
// real SQLite Source, to the real counting upstream, which records every message as it arrived.
import { PassThrough } from "node:stream";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGateway, type Gateway } from "../../src/mcp/gateway/gateway.js";
import { StdioLineTransport } from "../../src/mcp/stdio-transport.js";
import type { DecisionLike } from "../../src/mcp/gateway/types.js";
import { openSqliteReviewStore } from "../../src/review/sqlite.js";
import type { ReviewStore } from "../../src/review/types.js";
import { INVISIBLE, scalar, spellings } from "../sources/argument-arbitraries.js";
import { tempDir, TestClock, upstreamEnv, upstreamScript } from "./harness.js";
import { type GatewayPolicy, openGatewayPolicy } from "./policy.js";
import { readFileSync, existsSync } from "node:fs";

// ---- raw JSON --------------------------------------------------------------------------------

/** A value as raw JSON text: what the agent wrote, before any reader parsed it. */
type Raw = string;

function rawOf(v: unknown): Raw {
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number") return Object.is(v, -0) ? "-0" : JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(rawOf).join(",")}]`;
  if (v !== null && typeof v === "object")
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}:${rawOf(x)}`)
      .join(",")}}`;
  return JSON.stringify(v);
}

// order 1 is allowed by the policy, 2 belongs to someone else, 3 is held: their spellings matter most
const keyValue: fc.Arbitrary<Raw> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom("1", "5", '"1"') },
  { weight: 4, arbitrary: fc.constantFrom(...[1, 2, 3, 5].flatMap((k) => spellings(k))).map(rawOf) },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      // number literals another reader could take differently, or that are not JSON at all
      "1.0000000000000001",
      "5.00000000000000001",
      "1.0",
      "1e0",
      "0.1e1",
      "1.000000000000000000001",
      "9007199254740993",
      "-9007199254740993",
      "18446744073709551617",
      "1.",
      "01",
      "+1",
      '"1001."',
      '"+1001"',
      '"01001"',
      '" 1001"',
      '"1.001e3"',
    ),
  },
  { weight: 2, arbitrary: scalar.map(rawOf) },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 2 }).map(rawOf) },
  { weight: 1, arbitrary: fc.dictionary(fc.constantFrom("a", "order_id"), scalar, { maxKeys: 2 }).map(rawOf) },
);
const requestValue: fc.Arbitrary<Raw> = fc.oneof(
  fc.string({ maxLength: 6 }).map(rawOf),
  fc.constantFrom(...INVISIBLE).map((c) => rawOf(`ok${c}`)),
  fc.dictionary(fc.constantFrom("note", "nested"), scalar, { maxKeys: 2 }).map(rawOf),
);
/** Other keys: the declared ungrounded one, shadows of both, and an undeclared one. */
const otherEntry: fc.Arbitrary<[string, Raw]> = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(fc.constant("request"), requestValue) },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.constantFrom("ORDER_ID", "order_id\u200b", "orderId", "Request", "amount"), keyValue),
  },
  { weight: 1, arbitrary: fc.tuple(fc.constant("order_id"), keyValue) }, // a key twice: the transport refuses it
);
/** A raw arguments object: the grounded key, then up to two others. */
const rawArguments: fc.Arbitrary<Raw> = fc
  .tuple(keyValue, fc.array(otherEntry, { maxLength: 2 }))
  .map(([id, es]) => `{${[`"order_id":${id}`, ...es.map(([k, v]) => `${JSON.stringify(k)}:${v}`)].join(",")}}`);

const ws = (s: string, i: number) => {
  while (s[i] === " " || s[i] === "\n" || s[i] === "\t" || s[i] === "\r") i++;
  return i;
};

/** Where the JSON value starting at `i` ends (one past its last character). */
function valueEnd(s: string, i: number): number {
  const c = s[i];
  if (c === '"') {
    let j = i + 1;
    while (s[j] !== '"') j += s[j] === "\\" ? 2 : 1;
    return j + 1;
  }
  if (c === "{" || c === "[") {
    const close = c === "{" ? "}" : "]";
    let j = ws(s, i + 1);
    if (s[j] === close) return j + 1;
    for (;;) {
      if (c === "{") j = ws(s, ws(s, valueEnd(s, j)) + 1); // the key and its colon
      j = ws(s, valueEnd(s, j));
      if (s[j] === ",") j = ws(s, j + 1);
      else return j + 1;
    }
  }
  let j = i;
  while (j < s.length && !",}] \n\t\r".includes(s[j]!)) j++;
  return j;
}

/** The raw text of member `name` of the object starting at `at`, or null. */
function member(s: string, at: number, name: string): { start: number; end: number } | null {
  let j = ws(s, at + 1);
  while (s[j] === '"') {
    const keyEnd = valueEnd(s, j);
    const key = JSON.parse(s.slice(j, keyEnd)) as string;
    const start = ws(s, ws(s, keyEnd) + 1);
    const end = valueEnd(s, start);
    if (key === name) return { start, end };
    j = ws(s, end);
    if (s[j] === ",") j = ws(s, j + 1);
  }
  return null;
}

/** The raw text of `params.arguments` in one JSON-RPC message, as written (JSON.parse would round it). */
function argumentsText(message: string): string | null {
  const params = member(message, ws(message, 0), "params");
  if (params === null) return null;
  const args = member(message, params.start, "arguments");
  return args === null ? null : message.slice(args.start, args.end);
}

/** Whether a JSON number literal names an integer exactly as the double a reader gets from it. */
function integerExact(literal: string): boolean {
  const m = /^(-?)(\d+)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(literal);
  if (m === null) return true; // not a number literal
  const read = Number(literal);
  if (!Number.isInteger(read)) return true; // a fraction: not this reference's concern
  const [, sign, whole, fraction = "", exp = "0"] = m;
  let digits = BigInt(`${whole}${fraction}`);
  let scale = Number(exp) - fraction.length;
  for (; scale > 0; scale--) digits *= 10n;
  const ten = 10n ** BigInt(-scale);
  if (scale < 0 && digits % ten !== 0n) return false; // 1.000…01 names no integer
  const written = (scale < 0 ? digits / ten : digits) * (sign === "-" ? -1n : 1n);
  return written === BigInt(read);
}

/** Every top-level member of a raw arguments object, as written. */
function members(raw: string): [string, string][] {
  const out: [string, string][] = [];
  let j = ws(raw, 1);
  while (raw[j] === '"') {
    const keyEnd = valueEnd(raw, j);
    const start = ws(raw, ws(raw, keyEnd) + 1);
    const end = valueEnd(raw, start);
    out.push([JSON.parse(raw.slice(j, keyEnd)) as string, raw.slice(start, end)]);
    j = ws(raw, end);
    if (raw[j] === ",") j = ws(raw, j + 1);
  }
  return out;
}

// ---- the gateway ---------------------------------------------------------------------------

let dir: string;
let cleanup: () => void;
let policy: GatewayPolicy;
let reviews: ReviewStore;
let gateway: Gateway;
const toGateway = new PassThrough();
const fromGateway = new PassThrough();
const answers = new Map<number, (m: Record<string, unknown>) => void>();
let nextId = 1;
// what the engine grounded for the call in flight, as the gateway handed it over
let grounded: { json: string; decision: DecisionLike["decision"] } | null = null;
const lastGrounded = () => grounded;

/** Send one raw line; resolves with the answer to `id`. */
function exchange(id: number, line: string): Promise<Record<string, unknown>> {
  const answered = new Promise<Record<string, unknown>>((resolve) => answers.set(id, resolve));
  toGateway.write(`${line}\n`);
  return answered;
}

const rawFile = () => join(dir, "raw.jsonl");
/** The raw text of every tools/call the upstream received, in order. */
function upstreamCalls(): string[] {
  if (!existsSync(rawFile())) return [];
  return readFileSync(rawFile(), "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => (JSON.parse(l) as { raw: string }).raw)
    .filter((raw) => /"method":"tools\/call"/.test(raw));
}

beforeAll(async () => {
  ({ dir, cleanup } = tempDir("gw-exec-pbt"));
  const clock = new TestClock();
  policy = await openGatewayPolicy(dir, clock.read);
  reviews = openSqliteReviewStore(join(dir, "gateway.db"));
  gateway = await createGateway({
    upstream: {
      kind: "stdio",
      command: process.execPath,
      args: [upstreamScript],
      env: { ...upstreamEnv(dir), RAW_FILE: rawFile() },
      stderr: "ignore",
    },
    decide: async (call) => {
      const decision = await policy.decide(call);
      grounded = { json: JSON.stringify(call.arguments), decision: decision.decision };
      return decision;
    },
    describe: policy.describe,
    reviews,
    audit: policy.audit,
    clock: clock.read,
    policyDigest: policy.digest,
  });
  let buffered = "";
  fromGateway.setEncoding("utf8").on("data", (chunk: string) => {
    buffered += chunk;
    for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
      const message = JSON.parse(buffered.slice(0, nl)) as Record<string, unknown>;
      buffered = buffered.slice(nl + 1);
      // a line that is not JSON is answered with `id: null`: calls go one at a time, so it is the latest's
      const id = typeof message.id === "number" ? message.id : message.id === null ? nextId - 1 : undefined;
      if (id !== undefined) answers.get(id)?.(message);
    }
  });
  await gateway.connect(new StdioLineTransport(toGateway, fromGateway));
  const id = nextId++;
  await exchange(
    id,
    JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "pbt", version: "1" } },
    }),
  );
  toGateway.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
});

afterAll(async () => {
  await gateway.close();
  await reviews.close();
  await policy.close();
  cleanup();
});

describe("the gateway forwards exactly what it grounded", () => {
  it("an allowed call reaches the upstream with the grounded arguments byte for byte; nothing else reaches it", async () => {
    let forwarded = 0;
    await fc.assert(
      fc.asyncProperty(rawArguments, async (args) => {
        const id = nextId++;
        const before = upstreamCalls().length;
        grounded = null;
        const answer = await exchange(
          id,
          `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"refund_order","arguments":${args}}}`,
        );
        const after = upstreamCalls().slice(before);
        const verdict = (answer.result as { _meta?: Record<string, { decision?: string }> } | undefined)?._meta?.[
          "tessera/gateway"
        ]?.decision;
        if (verdict !== "forward") {
          // refused by the transport (an inexact number, a key twice, not JSON), the gateway or the policy
          expect(after).toEqual([]);
          return;
        }
        forwarded++;
        const what = lastGrounded();
        expect(what?.decision).toBe("allow");
        expect(after).toHaveLength(1);
        expect(argumentsText(after[0]!)).toBe(what!.json);
        // and what was grounded is what the agent wrote, read exactly: no integer was rounded on the way
        for (const [key, literal] of members(args))
          expect({ key, literal, exact: integerExact(literal) }).toMatchObject({ exact: true });
        expect(what!.json).toBe(JSON.stringify(JSON.parse(args)));
      }),
      { numRuns: 60, seed: 20261202 },
    );
    // the property is not vacuous: some calls were allowed and forwarded
    expect(forwarded).toBeGreaterThan(0);
  });

  it("reads `params.arguments` of a message as it was written", () => {
    expect(
      argumentsText(
        '{"method":"tools/call","params":{"name":"x","arguments":{"a":[1,{"b":"}"}],"c":9007199254740993}},"id":1}',
      ),
    ).toBe('{"a":[1,{"b":"}"}],"c":9007199254740993}');
    expect(argumentsText('{"params":{"arguments":{},"name":"x"}}')).toBe("{}");
    expect(members('{"a":1.0,"b":"x,y","c":[1]}')).toEqual([
      ["a", "1.0"],
      ["b", '"x,y"'],
      ["c", "[1]"],
    ]);
    expect(["1", "1.0", "0.1e1", "1e0", "-0", "9007199254740992"].map(integerExact)).toEqual([
      true,
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(["9007199254740993", "1.000000000000000000001", "18446744073709551617"].map(integerExact)).toEqual([
      false,
      false,
      false,
    ]);
  });
});
