import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type Bindings,
  compareScalars,
  evaluateConditions,
  inList,
  type Scalar,
  scalarEquals,
} from "../../src/core/index.js";

const RUNS = { numRuns: 3000 };

/** Scalars dense in the cases the equality rules single out. */
const scalar: fc.Arbitrary<Scalar> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.constantFrom(0, 1, -1, 0.5, 1e21, -0, 2 ** 53, Number.NaN, Number.POSITIVE_INFINITY),
  fc.double(),
  fc.integer(),
  fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }),
  fc.constantFrom(
    "",
    "0",
    "1",
    "-1",
    "0.5",
    "1.0",
    "01",
    "true",
    "false",
    "True",
    " 1",
    "null",
    "1e+21",
    "9007199254740992",
  ),
  fc.string({ maxLength: 6 }),
);

/** Strict decimal strings: optional minus, no leading zeros, optional fraction. */
const decimal = fc
  .tuple(
    fc.boolean(),
    fc.oneof(fc.constant("0"), fc.stringMatching(/^[1-9][0-9]{0,24}$/)),
    fc.option(fc.stringMatching(/^[0-9]{1,12}$/)),
  )
  .map(([neg, int, frac]) => `${neg ? "-" : ""}${int}${frac === null ? "" : `.${frac}`}`);

/** Exact reference ordering of two strict decimal strings through scaled bigints. */
function referenceCompare(a: string, b: string): -1 | 0 | 1 {
  const scale = 20;
  const toBig = (s: string): bigint => {
    const neg = s.startsWith("-");
    const [i, f = ""] = s.replace("-", "").split(".");
    const v = BigInt(i! + f.padEnd(scale, "0"));
    return neg ? -v : v;
  };
  const x = toBig(a);
  const y = toBig(b);
  return x === y ? 0 : x < y ? -1 : 1;
}

describe("scalar equality", () => {
  it("is symmetric", () => {
    fc.assert(
      fc.property(scalar, scalar, (a, b) => scalarEquals(a, b) === scalarEquals(b, a)),
      RUNS,
    );
  });

  it("null equals only null", () => {
    fc.assert(
      fc.property(scalar, (a) => scalarEquals(null, a) === (a === null)),
      RUNS,
    );
  });

  it("is reflexive for everything but NaN", () => {
    fc.assert(
      fc.property(scalar, (a) => scalarEquals(a, a) === !(typeof a === "number" && Number.isNaN(a))),
      RUNS,
    );
  });

  it("a number equals a string exactly when String(number) is that string", () => {
    fc.assert(
      fc.property(fc.double(), fc.string({ maxLength: 8 }), (n, s) => scalarEquals(n, s) === (String(n) === s)),
      RUNS,
    );
    fc.assert(
      fc.property(fc.double(), (n) => scalarEquals(n, String(n))),
      RUNS,
    );
  });
});

describe("in and not_in", () => {
  const bindings: Bindings = { value: null, arguments: {}, context: {} };

  it("are complements on every single row", () => {
    fc.assert(
      fc.property(scalar, fc.array(scalar, { maxLength: 5 }), (cell, list) => {
        const rows = [{ c: cell }];
        const r = evaluateConditions(
          rows,
          [
            { column: "c", op: "in", value: list },
            { column: "c", op: "not_in", value: list },
          ],
          bindings,
        );
        const [isIn, notIn] = r.conditions;
        return isIn!.ok !== notIn!.ok && isIn!.ok === inList(cell, list);
      }),
      RUNS,
    );
  });

  it("over many rows, in holds iff every row is a member and not_in iff none is", () => {
    fc.assert(
      fc.property(
        fc.array(scalar, { minLength: 1, maxLength: 5 }),
        fc.array(scalar, { maxLength: 5 }),
        (cells, list) => {
          const rows = cells.map((c) => ({ c }));
          const r = evaluateConditions(
            rows,
            [
              { column: "c", op: "in", value: list },
              { column: "c", op: "not_in", value: list },
            ],
            bindings,
          );
          expect(r.conditions[0]!.ok).toBe(cells.every((c) => inList(c, list)));
          expect(r.conditions[1]!.ok).toBe(cells.every((c) => !inList(c, list)));
        },
      ),
      RUNS,
    );
  });
});

describe("ordering", () => {
  it("is antisymmetric: swapping the sides negates the answer, and null stays null", () => {
    fc.assert(
      fc.property(scalar, scalar, (a, b) => {
        const ab = compareScalars(a, b);
        const ba = compareScalars(b, a);
        return ab === null ? ba === null : ba === (ab === 0 ? 0 : -ab);
      }),
      RUNS,
    );
  });

  it("orders strict decimal strings exactly, at any size", () => {
    fc.assert(
      fc.property(decimal, decimal, (a, b) => compareScalars(a, b) === referenceCompare(a, b)),
      RUNS,
    );
  });

  it("orders finite numbers as numbers and agrees with their decimal strings when those are exact", () => {
    fc.assert(
      fc.property(
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        (a, b) => {
          expect(compareScalars(a, b)).toBe(a === b ? 0 : a < b ? -1 : 1);
        },
      ),
      RUNS,
    );
    fc.assert(
      fc.property(fc.integer(), decimal, (n, d) => compareScalars(n, d) === referenceCompare(String(n), d)),
      RUNS,
    );
  });

  it("refuses booleans, null, non-decimal strings and non-finite numbers", () => {
    const refused: Scalar[] = [
      true,
      false,
      null,
      "",
      "abc",
      "1e3",
      "01",
      "+1",
      "1.",
      ".5",
      " 1",
      "0x10",
      Number.NaN,
      Infinity,
      -Infinity,
    ];
    for (const x of refused) {
      expect(compareScalars(x, 1)).toBeNull();
      expect(compareScalars(1, x)).toBeNull();
    }
  });
});
