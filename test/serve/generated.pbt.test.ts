// Generated calls: arbitrary JSON arguments (hostile keys such as __proto__ and constructor, huge
// strings, deep nesting, duplicate keys), tools and contexts, sent as raw JSON text to the service
// and decided as `tessera check` decides the same text. Never a 500; a 200 is the CLI's bytes, so
// never an allow where the CLI blocks or holds; everything else is a 4xx with a one-line message.
import fc from "fast-check";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadPolicy } from "../../src/checks/load.js";
import type { Gate } from "../../src/checks/engine.js";
import { createGate } from "../../src/gate.js";
import { jsonOut } from "../../src/platform/format.js";
import { parseJson } from "../../src/platform/json.js";
import type { Serving } from "../../src/serve/start.js";
import { check, refundsPolicy, serveInProcess, tempDir } from "./harness.js";

const HOSTILE = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "",
  "order_id",
  "amount_cents",
  "value",
  "a.b",
  "line\nbreak",
  "\u0000",
  "ｏrder_id",
];
const key = fc.oneof(fc.constantFrom(...HOSTILE), fc.string({ maxLength: 8 }));
const scalar = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 12 }),
  fc.constantFrom(1001, 1003, 4999, "1001", "c-1", -0, 2 ** 53, 0.1),
);
/** JSON text of a value: objects as raw entry lists, so own `__proto__` keys and duplicates are sent as written. */
const { value: valueText } = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    scalar.map((v) => JSON.stringify(v)),
    fc.array(tie("value"), { maxLength: 3 }).map((xs) => `[${xs.join(",")}]`),
    fc
      .array(fc.tuple(key, tie("value")), { maxLength: 4 })
      .map((es) => `{${es.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`),
  ),
}));
const deep = fc.integer({ min: 20, max: 45 }).map((n) => `${"[".repeat(n)}1${"]".repeat(n)}`);
const huge = fc.integer({ min: 10_000, max: 200_000 }).map((n) => JSON.stringify("x".repeat(n)));
const argumentsText = fc
  .array(
    fc.tuple(
      key,
      fc.oneof({ weight: 6, arbitrary: valueText }, { weight: 1, arbitrary: deep }, { weight: 1, arbitrary: huge }),
    ),
    { maxLength: 5 },
  )
  .map((es) => `{${es.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`);
const tool = fc.oneof(
  fc.constantFrom(
    "refund_order",
    "cancel_order",
    "lookup",
    "Refund_Order",
    "refund-order",
    "__proto__",
    "constructor",
    "",
  ),
  fc.string({ maxLength: 10 }),
);
const contextText = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom(
    '{"customer_id":"c-1"}',
    '{"customer_id":"c-2"}',
    '{"customer_id":{"x":1}}',
    '{"customer_id":[1]}',
    '{"__proto__":{"customer_id":"c-1"}}',
    '{"tier":"gold"}',
  ),
  scalar.map((v) => `{"customer_id":${JSON.stringify(v)}}`),
);
const bodyText = fc
  .tuple(tool, fc.option(argumentsText, { nil: undefined }), contextText)
  .map(
    ([t, a, c]) =>
      `{"tool":${JSON.stringify(t)}${a === undefined ? "" : `,"arguments":${a}`}${c === undefined ? "" : `,"context":${c}`}}`,
  );

describe("generated calls over HTTP", () => {
  const t = tempDir("tessera-serve-pbt");
  let serving: Serving;
  let gate: Gate;
  beforeAll(async () => {
    const policy = await loadPolicy(refundsPolicy);
    serving = await serveInProcess(policy, { store: join(t.dir, "s.db") });
    gate = createGate(policy);
  });
  afterAll(async () => {
    await serving.close();
    await gate.close();
    t.cleanup();
  });

  /** What `tessera check --call <the call> --context <the context> --json` prints for this text, or null when it refuses it. */
  async function cli(text: string): Promise<string | null> {
    try {
      const body = parseJson(text) as { tool: unknown; arguments?: unknown; context?: unknown };
      if (typeof body.tool !== "string" || body.tool === "") return null;
      return jsonOut(
        await gate.check(
          { tool: body.tool, arguments: (body.arguments ?? {}) as never },
          (body.context ?? {}) as never,
        ),
      );
    } catch {
      return null;
    }
  }

  it("never answer 500, and a 200 is exactly the CLI's decision", async () => {
    const seen = { equal: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(bodyText, async (text) => {
        const got = await check(serving.url, text);
        const want = await cli(text);
        expect(got.status, `${text.slice(0, 300)} → ${got.text.slice(0, 300)}`).toBeLessThan(500);
        if (got.status === 200) {
          expect(want, "the service decided what the CLI refuses").not.toBeNull();
          expect(got.text).toBe(want);
          seen.equal += 1;
        } else {
          expect(got.status).toBeGreaterThanOrEqual(400);
          const { error } = got.json as { error: { code: string; message: string } };
          expect(error.code).toMatch(/^[a-z_]+$/);
          expect(error.message).not.toMatch(/[\n\r]/);
          seen.refused += 1;
        }
      }),
      { numRuns: 300, seed: 20261202 },
    );
    // both kinds of answer were exercised
    expect(seen.equal).toBeGreaterThan(50);
    expect(seen.refused).toBeGreaterThan(20);
  });
});
