import { describe, expect, it } from "vitest";
import {
  type Bindings,
  type Condition,
  type ConditionResult,
  ERROR_CODES,
  evaluateConditions,
  resolveBinding,
  type Row,
} from "../../src/core/index.js";

const bindings: Bindings = {
  value: 1001,
  arguments: { order_id: 1001, amount: 500, customer_id: "c-evil", note: "refund please" },
  context: { customer_id: "c-1", tenant: "acme" },
};

const one = (rows: readonly Row[], c: Condition, b: Bindings = bindings): ConditionResult =>
  evaluateConditions(rows, [c], b).conditions[0]!;
const code = (rows: readonly Row[], c: Condition, b: Bindings = bindings): string | undefined => one(rows, c, b).code;

describe("column against trusted context {column, ctx}", () => {
  it("matches the context field", () => {
    expect(
      evaluateConditions([{ customer_id: "c-1" }], [{ column: "customer_id", ctx: "customer_id" }], bindings),
    ).toStrictEqual({
      status: "matched",
      conditions: [{ condition: { column: "customer_id", ctx: "customer_id" }, ok: true, expected: "c-1" }],
    });
  });

  it("mismatches with not_equal, reporting what was compared", () => {
    expect(one([{ customer_id: "c-2" }], { column: "customer_id", ctx: "customer_id" })).toStrictEqual({
      condition: { column: "customer_id", ctx: "customer_id" },
      ok: false,
      code: "not_equal",
      expected: "c-1",
      actual: "c-2",
    });
  });

  it("reads only the trusted context, never an argument of the same or any name", () => {
    // the agent passed customer_id "c-evil" and order_id; neither may stand in for context
    expect(code([{ customer_id: "c-evil" }], { column: "customer_id", ctx: "customer_id" })).toBe("not_equal");
    const r = evaluateConditions([{ order_id: 1001 }], [{ column: "order_id", ctx: "order_id" }], bindings);
    expect(r.status).toBe("error");
    expect(r.conditions[0]!.code).toBe("binding_missing");
    const noContext: Bindings = { ...bindings, context: {} };
    expect(
      evaluateConditions([{ customer_id: "c-evil" }], [{ column: "customer_id", ctx: "customer_id" }], noContext)
        .status,
    ).toBe("error");
  });

  it("does not read inherited properties of the context", () => {
    const r = evaluateConditions([{ c: "x" }], [{ column: "c", ctx: "toString" }], bindings);
    expect(r.conditions[0]!.code).toBe("binding_missing");
  });
});

describe("column against a literal {column, value}", () => {
  it("matches and mismatches", () => {
    expect(one([{ status: "delivered" }], { column: "status", value: "delivered" }).ok).toBe(true);
    expect(code([{ status: "Delivered" }], { column: "status", value: "delivered" })).toBe("not_equal");
    expect(code([{ status: "delivered " }], { column: "status", value: "delivered" })).toBe("not_equal");
  });

  it("compares null only with null", () => {
    expect(one([{ x: null }], { column: "x", value: null }).ok).toBe(true);
    expect(code([{ x: "" }], { column: "x", value: null })).toBe("not_equal");
    expect(code([{ x: 0 }], { column: "x", value: null })).toBe("not_equal");
  });
});

describe("column against another argument {column, arg}", () => {
  it("resolves the argument", () => {
    expect(one([{ amount_cents: 500 }], { column: "amount_cents", arg: "amount" }).ok).toBe(true);
    expect(one([{ amount_cents: 700 }], { column: "amount_cents", op: "gte", arg: "amount" }).ok).toBe(true);
    expect(code([{ amount_cents: 499 }], { column: "amount_cents", op: "gte", arg: "amount" })).toBe(
      "not_greater_or_equal",
    );
  });

  it("resolves context first: a trusted field of the same name wins over the agent's argument", () => {
    expect(one([{ owner: "c-1" }], { column: "owner", arg: "customer_id" }).ok).toBe(true);
    expect(code([{ owner: "c-evil" }], { column: "owner", arg: "customer_id" })).toBe("not_equal");
    expect(resolveBinding("customer_id", bindings)).toStrictEqual({ found: true, value: "c-1" });
    expect(resolveBinding("order_id", bindings)).toStrictEqual({ found: true, value: 1001 });
    expect(resolveBinding("nope", bindings)).toStrictEqual({ found: false });
  });

  it("reserves `value` for the argument being grounded, over context and arguments", () => {
    const b: Bindings = { value: 7, arguments: { value: 8 }, context: { value: 9 } };
    expect(resolveBinding("value", b)).toStrictEqual({ found: true, value: 7 });
    expect(one([{ id: 7 }], { column: "id", arg: "value" }, b).ok).toBe(true);
  });

  it("is an error when the argument is bound nowhere", () => {
    const r = evaluateConditions([{ x: 1 }], [{ column: "x", arg: "missing" }], bindings);
    expect(r.status).toBe("error");
    expect(r.conditions[0]).toStrictEqual({
      condition: { column: "x", arg: "missing" },
      ok: false,
      code: "binding_missing",
    });
  });
});

describe("operators", () => {
  const row = [{ n: 10, s: "10.50", t: "abc", b: true, z: null }];
  const cases: [Condition, boolean, string?][] = [
    [{ column: "n", op: "eq", value: 10 }, true],
    [{ column: "n", op: "eq", value: "10" }, true],
    [{ column: "n", op: "eq", value: 11 }, false, "not_equal"],
    [{ column: "n", op: "ne", value: 11 }, true],
    [{ column: "n", op: "ne", value: 10 }, false, "equal"],
    [{ column: "n", op: "gt", value: 9 }, true],
    [{ column: "n", op: "gt", value: 10 }, false, "not_greater"],
    [{ column: "n", op: "gte", value: 10 }, true],
    [{ column: "n", op: "gte", value: "10.01" }, false, "not_greater_or_equal"],
    [{ column: "n", op: "lt", value: "10.5" }, true],
    [{ column: "n", op: "lt", value: 10 }, false, "not_less"],
    [{ column: "n", op: "lte", value: 10 }, true],
    [{ column: "n", op: "lte", value: 9.99 }, false, "not_less_or_equal"],
    [{ column: "s", op: "gt", value: "10.5" }, false, "not_greater"], // 10.50 equals 10.5 exactly
    [{ column: "s", op: "gte", value: "10.5" }, true],
    [{ column: "s", op: "eq", value: "10.5" }, false, "not_equal"], // equality of strings is exact
    [{ column: "t", op: "gt", value: "abb" }, false, "not_comparable"],
    [{ column: "b", op: "gt", value: 0 }, false, "not_comparable"],
    [{ column: "z", op: "lt", value: 1 }, false, "not_comparable"],
    [{ column: "n", op: "gt", value: "1e1" }, false, "not_comparable"],
    [{ column: "n", op: "in", value: [1, 10, "x"] }, true],
    [{ column: "n", op: "in", value: ["10", 2] }, true],
    [{ column: "n", op: "in", value: [1, 2] }, false, "not_in_list"],
    [{ column: "n", op: "in", value: [] }, false, "not_in_list"],
    [{ column: "n", op: "not_in", value: [1, 2] }, true],
    [{ column: "n", op: "not_in", value: [] }, true],
    [{ column: "n", op: "not_in", value: [10] }, false, "in_list"],
    [{ column: "b", op: "in", value: [1] }, true],
    [{ column: "b", op: "eq", value: "true" }, true],
    [{ column: "z", op: "is_null" }, true],
    [{ column: "n", op: "is_null" }, false, "not_null"],
    [{ column: "n", op: "not_null" }, true],
    [{ column: "z", op: "not_null" }, false, "is_null"],
  ];
  it.each(cases)("%j holds: %s", (condition, ok, failCode) => {
    const r = one(row, condition);
    expect(r.ok).toBe(ok);
    expect(r.code).toBe(failCode);
    expect(evaluateConditions(row, [condition], bindings).status).toBe(ok ? "matched" : "mismatch");
  });

  it("orders big decimal strings exactly, beyond double precision", () => {
    const rows = [{ amount: "12345678901234567890.5" }];
    expect(one(rows, { column: "amount", op: "gt", value: "12345678901234567890.4" }).ok).toBe(true);
    expect(code(rows, { column: "amount", op: "lt", value: "12345678901234567890.4" })).toBe("not_less");
    expect(one(rows, { column: "amount", op: "lt", value: "12345678901234567890.50001" }).ok).toBe(true);
    expect(one(rows, { column: "amount", op: "gte", value: "12345678901234567890.50" }).ok).toBe(true);
    expect(one([{ big: 12345678901234567891n }], { column: "big", op: "gt", value: "12345678901234567890.9" }).ok).toBe(
      true,
    );
    expect(one([{ v: "-0.001" }], { column: "v", op: "lt", value: 0 }).ok).toBe(true);
    expect(one([{ v: "-0.0" }], { column: "v", op: "gte", value: 0 }).ok).toBe(true);
  });
});

describe("rows conditions {rows: op, value: n}", () => {
  const cases: [Row[], Condition, boolean][] = [
    [[], { rows: "eq", value: 0 }, true],
    [[{}], { rows: "eq", value: 0 }, false],
    [[{}, {}], { rows: "ne", value: 1 }, true],
    [[{}, {}], { rows: "gt", value: 1 }, true],
    [[{}], { rows: "gt", value: 1 }, false],
    [[{}], { rows: "gte", value: 1 }, true],
    [[], { rows: "lt", value: 1 }, true],
    [[{}, {}], { rows: "lte", value: 1 }, false],
  ];
  it.each(cases)("%j rows against %j: %s", (rows, condition, ok) => {
    const r = one(rows, condition);
    expect(r.ok).toBe(ok);
    expect(r.code).toBe(ok ? undefined : "row_count");
    expect(r.actual).toBe(rows.length);
    expect(r.expected).toBe((condition as { value: number }).value);
  });
});

describe("column conditions over several rows", () => {
  it("must hold for every returned row, and report the first offending value", () => {
    const rows = [{ status: "delivered" }, { status: "delivered" }, { status: "lost" }, { status: "stolen" }];
    const r = one(rows, { column: "status", value: "delivered" });
    expect(r).toMatchObject({ ok: false, code: "not_equal", actual: "lost" });
    expect(one(rows.slice(0, 2), { column: "status", value: "delivered" }).ok).toBe(true);
  });

  it("fail with no_rows on zero rows, for every kind of column condition", () => {
    const conditions: Condition[] = [
      { column: "a", value: 1 },
      { column: "a", ctx: "customer_id" },
      { column: "a", arg: "amount" },
      { column: "a", op: "not_in", value: [1] },
      { column: "a", op: "ne", value: 1 },
      { column: "a", op: "is_null" },
    ];
    for (const c of conditions) {
      const r = evaluateConditions([], [c], bindings);
      expect(r.status).toBe("mismatch");
      expect(r.conditions[0]).toMatchObject({ ok: false, code: "no_rows", actual: 0 });
    }
  });

  it("treat a non-scalar cell as not_scalar", () => {
    expect(code([{ a: { nested: 1 } }], { column: "a", value: 1 })).toBe("not_scalar");
    expect(code([{ a: [1] }], { column: "a", op: "in", value: [1] })).toBe("not_scalar");
    expect(code([{ a: undefined }], { column: "a", op: "is_null" })).toBe("not_scalar");
  });
});

describe("check status", () => {
  it("is error when a column is missing from any row, even when other conditions fail", () => {
    const r = evaluateConditions(
      [{ status: "delivered", owner: "c-2" }, { status: "delivered" }],
      [
        { column: "owner", ctx: "customer_id" },
        { column: "status", value: "lost" },
      ],
      bindings,
    );
    expect(r.status).toBe("error");
    expect(r.conditions.map((c) => c.code)).toStrictEqual(["column_missing", "not_equal"]);
  });

  it("is mismatch when any condition fails and none errs, matched when all hold", () => {
    const rows = [{ owner: "c-1", status: "delivered" }];
    expect(
      evaluateConditions(
        rows,
        [
          { column: "owner", ctx: "customer_id" },
          { column: "status", value: "lost" },
        ],
        bindings,
      ).status,
    ).toBe("mismatch");
    expect(
      evaluateConditions(
        rows,
        [
          { column: "owner", ctx: "customer_id" },
          { column: "status", value: "delivered" },
        ],
        bindings,
      ).status,
    ).toBe("matched");
  });

  it("is matched for no conditions, and results come in condition order", () => {
    expect(evaluateConditions([], [], bindings)).toStrictEqual({ status: "matched", conditions: [] });
  });

  it("errors exactly on column_missing and binding_missing", () => {
    expect([...ERROR_CODES].sort()).toStrictEqual(["binding_missing", "column_missing"]);
  });
});
