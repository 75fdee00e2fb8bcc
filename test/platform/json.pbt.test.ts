import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { findDuplicateKey, parseErrorLine, parseJson } from "../../src/platform/json.js";
import { TesseraError } from "../../src/platform/errors.js";

describe("findDuplicateKey", () => {
  it("finds none in any JSON.stringify output (which cannot repeat a key), indented or not", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(undefined, 2), (v, indent) => {
        expect(findDuplicateKey(JSON.stringify(v, null, indent))).toBeNull();
      }),
      { numRuns: 500 },
    );
  });

  it("finds a key repeated in any object, however deep, whatever its strings hold", () => {
    const key = fc.string({ maxLength: 6 });
    fc.assert(
      fc.property(
        fc.dictionary(key, fc.jsonValue({ maxDepth: 2 }), { minKeys: 1, maxKeys: 4 }),
        fc.array(fc.nat(3), { maxLength: 3 }),
        (obj, nesting) => {
          const [k] = Object.keys(obj) as [string];
          // repeat the first key by hand: `{"k":v,...,"k":null}`
          let text = JSON.stringify(obj).replace(/\}$/, () => `,${JSON.stringify(k)}:null}`);
          let path = "(root)";
          const parts: string[] = [];
          for (const n of nesting) {
            text = `[${"0,".repeat(n)}${text}]`;
            parts.unshift(`[${n}]`);
          }
          if (parts.length > 0) path = parts.join("");
          expect(findDuplicateKey(text)).toEqual({ path, key: k });
        },
      ),
      { numRuns: 500 },
    );
  });

  it("names the path of the object holding the duplicate", () => {
    expect(findDuplicateKey('{"a":{"b":[1,{"c":"},{\\"c\\":","c":2}]}}')).toEqual({ path: "a.b[1]", key: "c" });
    expect(findDuplicateKey('{"a\\"b":1,"a\\"b":2}')).toEqual({ path: "(root)", key: 'a"b' });
    expect(findDuplicateKey('{"x":{"k":1},"y":{"k":1}}')).toBeNull();
  });
});

describe("parseJson", () => {
  it("parses as JSON.parse does, and throws duplicate_key or a SyntaxError", () => {
    expect(parseJson('{"a":[1,"b"]}')).toEqual({ a: [1, "b"] });
    expect(() => parseJson('{"a":1,"a":1}')).toThrow(new TesseraError("duplicate_key", "duplicate key `a`", "(root)"));
    expect(() => parseJson("{")).toThrow(SyntaxError);
  });
});

describe("parseErrorLine", () => {
  it("keeps one lower-case line without a trailing period, and our own messages (paths) as they are", () => {
    expect(parseErrorLine(new SyntaxError("Unexpected end of JSON input.\n  at line 1"))).toBe(
      "unexpected end of JSON input",
    );
    expect(parseErrorLine(new Error("Map keys must be unique at line 5, column 1:\n\nrequest_id: s\n^\n"))).toBe(
      "map keys must be unique at line 5, column 1",
    );
    let dup: unknown;
    try {
      parseJson('{"Kind":{"A":1,"A":2}}');
    } catch (e) {
      dup = e;
    }
    expect(parseErrorLine(dup)).toBe("Kind: duplicate key `A`");
  });
});
