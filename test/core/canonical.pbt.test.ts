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
        const rotated = reorder(v, (ks) => (ks.length === 0 ? ks : [...ks.slice(Math.abs(seed) % ks.length), ...ks.slice(0, Math.abs(seed) % ks.length)]));
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
    expect(canonicalJson({ b: 1, a: [true, null, { d: "x", c: 2 }], B: 0, é: 1, z: 1 })).toBe('{"B":0,"a":[true,null,{"c":2,"d":"x"}],"b":1,"z":1,"é":1}');
  });

  it("drops undefined members, writes bigints as strings and refuses what JSON cannot hold", () => {
    expect(canonicalJson({ a: undefined, b: 10n ** 20n, c: [undefined] })).toBe('{"b":"100000000000000000000","c":[null]}');
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
