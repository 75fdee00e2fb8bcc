import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/core/index.js";

/** Rebuild a JSON value with every object's keys inserted in a different order. */
function reorder(v: unknown, pick: (keys: string[]) => string[]): unknown {
  if (Array.isArray(v)) return v.map((x) => reorder(x, pick));
  if (v !== null && typeof v === "object") {
    const keys = pick(Object.keys(v));
    return Object.fromEntries(keys.map((k) => [k, reorder((v as Record<string, unknown>)[k], pick)]));
  }
  return v;
}

describe("canonicalJson", () => {
  it("does not depend on key insertion order", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer(), (v, seed) => {
        const reversed = reorder(v, (ks) => [...ks].reverse());
        const rotated = reorder(v, (ks) =>
          ks.length === 0 ? ks : [...ks.slice(Math.abs(seed) % ks.length), ...ks.slice(0, Math.abs(seed) % ks.length)],
        );
        return canonicalJson(reversed) === canonicalJson(v) && canonicalJson(rotated) === canonicalJson(v);
      }),
      { numRuns: 1000 },
    );
  });

  it("round-trips through JSON.parse", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = canonicalJson(v);
        expect(JSON.parse(text)).toStrictEqual(JSON.parse(JSON.stringify(v)));
        expect(canonicalJson(JSON.parse(text))).toBe(text);
      }),
      { numRuns: 1000 },
    );
  });

  it("sorts keys by code units at every depth, with no whitespace", () => {
    expect(canonicalJson({ b: 1, a: [true, null, { d: "x", c: 2 }], B: 0, é: 1, z: 1 })).toBe(
      '{"B":0,"a":[true,null,{"c":2,"d":"x"}],"b":1,"z":1,"é":1}',
    );
  });

  it("agrees with JSON.stringify on arrays with holes and on toJSON", () => {
    const holes = [1, , 3];
    expect(canonicalJson(holes)).toBe(JSON.stringify(holes));
    expect(canonicalJson({ when: new Date(0), x: { toJSON: () => ({ b: 2, a: 1 }) } })).toBe(
      '{"when":"1970-01-01T00:00:00.000Z","x":{"a":1,"b":2}}',
    );
    const selfish = {
      toJSON(): unknown {
        return this;
      },
    };
    expect(() => canonicalJson(selfish)).toThrow(/cycle/);
  });

  it("matches JSON.stringify whenever keys are already sorted (and none is an integer, which JS orders first)", () => {
    const integerKey = (v: unknown): boolean =>
      Array.isArray(v)
        ? v.some(integerKey)
        : v !== null &&
          typeof v === "object" &&
          Object.entries(v).some(([k, x]) => /^(0|[1-9][0-9]*)$/.test(k) || integerKey(x));
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        fc.pre(!integerKey(v));
        const sorted = reorder(v, (ks) => [...ks].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
        return canonicalJson(sorted) === JSON.stringify(sorted);
      }),
      { numRuns: 1000 },
    );
  });

  it("drops undefined members, writes bigints as strings and refuses what JSON cannot hold", () => {
    expect(canonicalJson({ a: undefined, b: 10n ** 20n, c: [undefined] })).toBe(
      '{"b":"100000000000000000000","c":[null]}',
    );
    expect(() => canonicalJson({ a: Number.NaN })).toThrow(TypeError);
    expect(() => canonicalJson({ a: Infinity })).toThrow(TypeError);
    expect(() => canonicalJson(() => 1)).toThrow(TypeError);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(/cycle/);
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
  });
});
