// The engine against a fault-injecting Source: each error kind × each on_error gives the exact
// outcome, and the number of requests is exactly attempts + 1 — never more, never retried on a
// mismatch or a missing binding.
import { describe, expect, it } from "vitest";
import {
  createEngine,
  type Decision,
  parsePolicy,
  type Policy,
  type Source,
  SourceError,
  type SourceErrorCode,
  type SourceResult,
} from "../../src/checks/index.js";
import type { Row, Scalar } from "../../src/core/index.js";

const ERROR_CODES: SourceErrorCode[] = [
  "source_timeout",
  "source_auth_failed",
  "source_unreachable",
  "source_server_error",
  "source_invalid_query",
  "source_malformed_response",
  "source_tool_error",
];

type Step = { rows: Row[]; columns?: string[] } | { fail: SourceErrorCode } | { throw: Error } | "hang";

/** A Source that answers from a script of steps (the last step repeats) and records every request. */
class FaultSource implements Source {
  readonly kind = "fault";
  readonly requests: { params: Readonly<Record<string, Scalar>>; signal: AbortSignal }[] = [];
  closed = 0;
  constructor(
    private readonly steps: Step[],
    readonly timeoutMs = 5000,
    private readonly parameters: string[] = ["value"],
  ) {}
  prepare() {
    return {
      parameters: this.parameters,
      run: (params: Readonly<Record<string, Scalar>>, signal: AbortSignal): Promise<SourceResult> => {
        this.requests.push({ params, signal });
        const step = this.steps[Math.min(this.requests.length - 1, this.steps.length - 1)]!;
        if (step === "hang") return new Promise(() => undefined);
        if ("fail" in step) return Promise.reject(new SourceError(step.fail, `scripted ${step.fail}`));
        if ("throw" in step) throw step.throw;
        return Promise.resolve(step);
      },
    };
  }
  async close() {
    this.closed++;
  }
}

function policy(check: string, extra = ""): Policy {
  return parsePolicy(
    `version: 1
sources:
  db: { kind: sqlite, path: ./unused.db }
defaults: { unlisted_tools: block }
tools:
  refund:
    arguments:
      order_id:
        ground:
          checks:
            - source: db
              query: SELECT owner FROM orders WHERE id = :value
${check}
${extra}`,
    "test.yaml",
    { env: {} },
  );
}

const owner = (retry: string, onFail = "") =>
  policy(
    `              match: [ { column: owner, ctx: customer_id } ]\n              retry: ${retry}\n${onFail ? `              on_fail: ${onFail}\n` : ""}`,
  );

async function decide(
  p: Policy,
  source: Source,
  args: Record<string, unknown> = { order_id: 7 },
  ctx: Record<string, unknown> = { customer_id: "c-1" },
): Promise<Decision> {
  const gate = createEngine(p, async () => source);
  try {
    return await gate.check({ tool: "refund", arguments: args }, ctx);
  } finally {
    await gate.close();
  }
}

describe("retry and on_error", () => {
  for (const code of ERROR_CODES) {
    for (const onError of ["block", "hold", "allow"] as const) {
      for (const attempts of [0, 1, 2]) {
        it(`${code} × on_error ${onError} × attempts ${attempts}: ${attempts + 1} requests, outcome ${onError}`, async () => {
          const src = new FaultSource([{ fail: code }]);
          const d = await decide(owner(`{ attempts: ${attempts}, on_error: ${onError} }`), src);
          expect(src.requests).toHaveLength(attempts + 1);
          expect(d.decision).toBe(onError);
          expect(d.checks[0]).toEqual({
            argument: "order_id",
            check: 0,
            source: "db",
            status: "error",
            outcome: onError,
            attempts: attempts + 1,
            rows: null,
            conditions: [],
            error: { code, message: `scripted ${code}` },
          });
        });
      }
    }
  }

  it("stops retrying at the first answer", async () => {
    const src = new FaultSource([
      { fail: "source_unreachable" },
      { fail: "source_timeout" },
      { rows: [{ owner: "c-1" }] },
      { fail: "source_server_error" },
    ]);
    const d = await decide(owner("{ attempts: 5 }"), src);
    expect(src.requests).toHaveLength(3);
    expect(d.checks[0]).toMatchObject({ status: "matched", outcome: "allow", attempts: 3, rows: 1 });
  });

  it("never retries a mismatch", async () => {
    const src = new FaultSource([{ rows: [{ owner: "c-2" }] }, { rows: [{ owner: "c-1" }] }]);
    const d = await decide(owner("{ attempts: 4 }", "hold"), src);
    expect(src.requests).toHaveLength(1);
    expect(d.decision).toBe("hold");
    expect(d.checks[0]).toMatchObject({ status: "mismatch", outcome: "hold", attempts: 1 });
  });

  it("retries a missing column, which is an error and not a mismatch", async () => {
    const src = new FaultSource([{ rows: [{ ownr: "c-1" }] }]);
    const d = await decide(owner("{ attempts: 2, on_error: hold }"), src);
    expect(src.requests).toHaveLength(3);
    expect(d.checks[0]).toMatchObject({
      status: "error",
      outcome: "hold",
      attempts: 3,
      error: { code: "column_missing" },
    });
  });

  it("reports a missing column from the column list even when no row came back", async () => {
    const src = new FaultSource([{ rows: [], columns: ["ownr"] }]);
    const d = await decide(owner("{ attempts: 0 }"), src);
    expect(d.checks[0]).toMatchObject({
      status: "error",
      rows: 0,
      conditions: [{ column: "owner", ok: false, code: "column_missing" }],
    });
  });

  it("never sends a request when a binding is missing, whatever the retry, and blocks whatever on_error says", async () => {
    const src = new FaultSource([{ rows: [{ owner: "c-1" }] }]);
    for (const onError of ["hold", "allow"]) {
      const d = await decide(owner(`{ attempts: 3, on_error: ${onError} }`), src, { order_id: 7 }, {});
      expect(src.requests).toHaveLength(0);
      expect(d.checks[0]).toMatchObject({ status: "error", outcome: "block", attempts: 0 });
    }
    const d = await decide(owner("{ attempts: 3, on_error: hold }"), src, { order_id: 7 }, {});
    expect(d.checks[0]).toMatchObject({
      status: "error",
      outcome: "block",
      attempts: 0,
      error: { code: "binding_missing" },
    });
  });

  it("never sends a request for a placeholder nothing binds", async () => {
    const src = new FaultSource([{ rows: [{ owner: "c-1" }] }], 5000, ["value", "tenant"]);
    const d = await decide(owner("{ attempts: 3 }"), src);
    expect(src.requests).toHaveLength(0);
    expect(d.checks[0]?.error).toEqual({
      code: "binding_missing",
      message: "placeholder `tenant` binds argument `tenant`, which the call lacks",
    });
  });

  it("binds each name from one place: value, a declared context field, or a listed argument (adr/0046)", async () => {
    // `tenant` is declared context and also listed: the context wins; `region` is listed: the call
    const declared = () =>
      policy(
        "              match: [ { column: owner, ctx: customer_id } ]\n              retry: { attempts: 0 }\n      tenant: {}\n      region: {}\n      nested: {}",
        "context: [customer_id, tenant]",
      );
    const src = new FaultSource([{ rows: [{ owner: "c-1" }] }], 5000, ["value", "tenant", "region"]);
    await decide(
      declared(),
      src,
      { order_id: 7, tenant: "agent-says", region: "eu", value: "not-this" },
      { customer_id: "c-1", tenant: "host-says", region: "host-region", value: "nor-this" },
    );
    expect(src.requests[0]?.params).toEqual({ value: 7, tenant: "host-says", region: "eu" });
    // a non-scalar argument is bound nowhere
    const src2 = new FaultSource([{ rows: [{ owner: "c-1" }] }], 5000, ["value", "nested"]);
    const d = await decide(declared(), src2, { order_id: 7, nested: { a: 1 } }, { customer_id: "c-1" });
    expect(src2.requests).toHaveLength(0);
    expect(d.checks[0]?.error?.code).toBe("binding_missing");
    // a declared context field absent from the context never falls back to the agent's argument
    const src3 = new FaultSource([{ rows: [{ owner: "c-1" }] }], 5000, ["value", "tenant"]);
    const d3 = await decide(declared(), src3, { order_id: 7, tenant: "agent-says" }, { customer_id: "c-1" });
    expect(src3.requests).toHaveLength(0);
    expect(d3.checks[0]).toMatchObject({ outcome: "block", error: { code: "binding_missing" } });
    // one present but not a scalar is the host's error, never skipped
    for (const bad of [["t"], { id: "t" }]) {
      await expect(
        decide(
          declared(),
          new FaultSource([{ rows: [] }]),
          { order_id: 7, tenant: "x" },
          { customer_id: "c-1", tenant: bad },
        ),
      ).rejects.toThrow(/^trusted context field `tenant` is (a list|an object), not a scalar$/);
    }
  });

  it("times a request out through the AbortSignal and counts each timed-out request", async () => {
    const src = new FaultSource(["hang"], 15);
    const d = await decide(owner("{ attempts: 1, on_error: hold }"), src);
    expect(src.requests).toHaveLength(2);
    expect(src.requests.every((r) => r.signal.aborted)).toBe(true);
    expect(d.checks[0]).toMatchObject({
      status: "error",
      outcome: "hold",
      attempts: 2,
      error: { code: "source_timeout", message: "no answer within 15 ms" },
    });
  });

  it("reuses a request's signal only when it did not abort and no listener holds it", async () => {
    const gate = (src: Source) => createEngine(owner("{ attempts: 0 }"), async () => src);
    const seen: AbortSignal[] = [];
    const tidy = (leaveListener: boolean): Source => ({
      kind: "tidy",
      timeoutMs: 5000,
      prepare: () => ({
        parameters: ["value"],
        run: async (_p, signal) => {
          seen.push(signal);
          expect(signal.aborted).toBe(false);
          const onAbort = () => undefined;
          signal.addEventListener("abort", onAbort);
          await Promise.resolve();
          if (!leaveListener) signal.removeEventListener("abort", onAbort);
          return { rows: [{ owner: "c-1" }] };
        },
      }),
      close: async () => undefined,
    });
    const g1 = gate(tidy(false));
    for (let i = 0; i < 3; i++)
      expect((await g1.check({ tool: "refund", arguments: { order_id: i } }, { customer_id: "c-1" })).decision).toBe(
        "allow",
      );
    await g1.close();
    expect(new Set(seen).size).toBe(1); // one signal served every sequential request
    seen.length = 0;
    const g2 = gate(tidy(true));
    for (let i = 0; i < 3; i++) await g2.check({ tool: "refund", arguments: { order_id: i } }, { customer_id: "c-1" });
    await g2.close();
    expect(new Set(seen).size).toBe(3); // a listener left behind: never handed out again
  });

  it("never hands out a signal that aborted", async () => {
    const src = new FaultSource(["hang", { rows: [{ owner: "c-1" }] }], 15);
    const gate = createEngine(owner("{ attempts: 0, on_error: hold }"), async () => src);
    try {
      expect((await gate.check({ tool: "refund", arguments: { order_id: 1 } }, { customer_id: "c-1" })).decision).toBe(
        "hold",
      );
      expect((await gate.check({ tool: "refund", arguments: { order_id: 2 } }, { customer_id: "c-1" })).decision).toBe(
        "allow",
      );
    } finally {
      await gate.close();
    }
    expect(src.requests[0]?.signal.aborted).toBe(true);
    expect(src.requests[1]?.signal).not.toBe(src.requests[0]?.signal);
    expect(src.requests[1]?.signal.aborted).toBe(false);
  });

  it("bounds opening a source by its timeout, and reuses the open once it finishes", async () => {
    let finish: (s: Source) => void = () => undefined;
    const opening = new Promise<Source>((r) => (finish = r));
    let opens = 0;
    const p = policy(
      `              match: [ { column: owner, ctx: customer_id } ]\n              retry: { attempts: 1, on_error: hold }`,
    );
    const slow = { ...p, sources: { db: { kind: "sqlite" as const, path: "/x.db", timeout_ms: 15 } } };
    const gate = createEngine(slow, () => {
      opens++;
      return opening;
    });
    const d = await gate.check({ tool: "refund", arguments: { order_id: 1 } }, { customer_id: "c-1" });
    expect(d.checks[0]).toMatchObject({
      status: "error",
      outcome: "hold",
      attempts: 2,
      error: { code: "source_timeout", message: "source `db` did not open within 15 ms" },
    });
    const src = new FaultSource([{ rows: [{ owner: "c-1" }] }]);
    finish(src);
    const again = await gate.check({ tool: "refund", arguments: { order_id: 1 } }, { customer_id: "c-1" });
    expect(again.checks[0]).toMatchObject({ status: "matched", attempts: 1 });
    expect(opens).toBe(1);
    await gate.close();
  });

  it("turns an adapter's unexpected exception into source_server_error without its message", async () => {
    const src = new FaultSource([{ throw: new TypeError("secret=hunter2") }]);
    const d = await decide(owner("{ attempts: 1 }"), src);
    expect(src.requests).toHaveLength(2);
    expect(d.checks[0]?.error).toEqual({
      code: "source_server_error",
      message: "unexpected TypeError from the `fault` adapter",
    });
    expect(JSON.stringify(d)).not.toContain("hunter2");
  });

  it("retries a source that fails to open, and opens it again", async () => {
    let opens = 0;
    const src = new FaultSource([{ rows: [{ owner: "c-1" }] }]);
    const gate = createEngine(owner("{ attempts: 2 }"), async () => {
      opens++;
      if (opens < 3) throw new SourceError("source_unreachable", "scripted open failure");
      return src;
    });
    const d = await gate.check({ tool: "refund", arguments: { order_id: 1 } }, { customer_id: "c-1" });
    expect(opens).toBe(3);
    expect(d.checks[0]).toMatchObject({ status: "matched", attempts: 3 });
    await gate.check({ tool: "refund", arguments: { order_id: 1 } }, { customer_id: "c-1" });
    expect(opens).toBe(3); // an opened source is reused
    await gate.close();
    await gate.close();
    expect(src.closed).toBe(1);
    await expect(gate.check({ tool: "refund", arguments: {} })).rejects.toThrow("the gate is closed");
  });
});

describe("synchronous sources", () => {
  it("call runSync with no signal, and retry its errors exactly as run's", async () => {
    const calls: unknown[][] = [];
    let n = 0;
    const source: Source = {
      kind: "sync",
      timeoutMs: 5000,
      prepare: () => ({
        parameters: ["value"],
        run: async () => {
          throw new Error("run must not be called when runSync exists");
        },
        runSync: (...args: unknown[]) => {
          calls.push(args);
          if (++n < 3) throw new SourceError("source_timeout", "late");
          return { rows: [{ owner: "c-1" }] };
        },
      }),
      close: async () => undefined,
    };
    const d = await decide(owner("{ attempts: 2 }"), source);
    expect(calls).toEqual([[{ value: 7 }], [{ value: 7 }], [{ value: 7 }]]);
    expect(d.checks[0]).toMatchObject({ status: "matched", attempts: 3 });
  });
});

describe("decisions", () => {
  const two = policy(
    `              match: [ { column: owner, ctx: customer_id } ]
      amount:
        ground:
          checks:
            - source: db
              query: SELECT paid FROM orders WHERE id = :order_id
              match: [ { column: paid, op: gte, arg: value } ]
              on_fail: hold`,
  );

  it("runs the checks of every argument concurrently", async () => {
    // each request waits for the other to start: run one after the other, they would time out
    let release: () => void = () => undefined;
    const both = new Promise<void>((r) => (release = r));
    let started = 0;
    const source: Source = {
      kind: "barrier",
      timeoutMs: 2000,
      prepare: (req) => ({
        parameters: req.query!.includes(":order_id") ? ["order_id"] : ["value"],
        run: async () => {
          if (++started === 2) release();
          await both;
          return { rows: req.query!.includes("paid") ? [{ paid: 100 }] : [{ owner: "c-1" }] };
        },
      }),
      close: async () => undefined,
    };
    const d = await createEngine(two, async () => source).check(
      { tool: "refund", arguments: { order_id: 1, amount: 50 } },
      { customer_id: "c-1" },
    );
    expect(d.decision).toBe("allow");
    expect(started).toBe(2);
  });

  it("has the contract's key order and is byte-identical on repeat", async () => {
    const src = new FaultSource([{ rows: [{ owner: "c-2", paid: 10 }] }]);
    const gate = createEngine(two, async () => src);
    const call = { tool: "refund", arguments: { order_id: 1, amount: 50 } };
    const a = await gate.check(call, { customer_id: "c-1" });
    const b = await gate.check(call, { customer_id: "c-1" });
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(Object.keys(a)).toEqual(["decision", "tool", "policy_digest", "checks"]);
    expect({
      ...a,
      policy_digest: a.policy_digest === two.digest ? "<two.digest>" : a.policy_digest,
    }).toMatchInlineSnapshot(`
      {
        "checks": [
          {
            "argument": "order_id",
            "attempts": 1,
            "check": 0,
            "conditions": [
              {
                "code": "not_equal",
                "column": "owner",
                "ctx": "customer_id",
                "ok": false,
              },
            ],
            "outcome": "block",
            "rows": 1,
            "source": "db",
            "status": "mismatch",
          },
          {
            "argument": "amount",
            "attempts": 1,
            "check": 0,
            "conditions": [
              {
                "arg": "value",
                "code": "not_greater_or_equal",
                "column": "paid",
                "ok": false,
                "op": "gte",
              },
            ],
            "outcome": "hold",
            "rows": 1,
            "source": "db",
            "status": "mismatch",
          },
        ],
        "decision": "block",
        "policy_digest": "<two.digest>",
        "tool": "refund",
      }
    `);
    expect(Object.keys(a.checks[0]!)).toEqual([
      "argument",
      "check",
      "source",
      "status",
      "outcome",
      "attempts",
      "rows",
      "conditions",
    ]);
    expect(Object.keys(a.checks[1]!.conditions[0]!)).toEqual(["column", "op", "arg", "ok", "code"]);
  });

  it("adds values only with explain: values", async () => {
    const src = new FaultSource([{ rows: [{ owner: "c-2", paid: 10 }] }]);
    const gate = createEngine(two, async () => src);
    const call = { tool: "refund", arguments: { order_id: 1, amount: 50 } };
    const plain = JSON.stringify(await gate.check(call, { customer_id: "c-1" }));
    expect(plain).not.toMatch(/"(expected|actual)"|"value":1/);
    const explained = await gate.check(call, { customer_id: "c-1" }, { explain: "values" });
    expect(explained.checks[0]).toMatchObject({
      value: 1,
      conditions: [{ ok: false, expected: "c-1", actual: "c-2" }],
    });
    expect(Object.keys(explained.checks[0]!).at(-1)).toBe("value");
  });

  it("gives an unlisted tool defaults.unlisted_tools and says why", async () => {
    const d = await createEngine(two, async () => new FaultSource([])).check({ tool: "other", arguments: {} });
    expect(d).toEqual({
      decision: "block",
      tool: "other",
      policy_digest: two.digest,
      reason: "unlisted_tool",
      checks: [],
    });
  });

  it("does not treat Object.prototype names as listed tools", async () => {
    const d = await createEngine(two, async () => new FaultSource([])).check({ tool: "constructor", arguments: {} });
    expect(d.reason).toBe("unlisted_tool");
  });

  it("rejects a malformed call as invalid input, not as a decision", async () => {
    const gate = createEngine(two, async () => new FaultSource([]));
    await expect(gate.check({ tool: "", arguments: {} })).rejects.toThrow("a call is an object");
    await expect(gate.check({ tool: "refund", arguments: [] as never })).rejects.toThrow(
      "arguments: expected an object",
    );
    await expect(gate.check({ tool: "refund", arguments: {} }, [] as never)).rejects.toThrow(
      "trusted context: expected an object",
    );
  });
});
