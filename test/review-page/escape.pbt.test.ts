// escapeHtml, the one way text reaches the review page's HTML: for every string, the escaped text
// holds no character that could open a tag, an entity or leave a quoted attribute, and an HTML
// parser reads it back as exactly the original text (checked by decoding the five entities).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { escapeHtml, html } from "../../src/review/web/escape.js";

const decode = (s: string) =>
  s.replace(/&(amp|lt|gt|quot|#39);/g, (_m, e: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" })[e]!);

const nasty = fc.oneof(
  fc.string({ unit: "grapheme" }),
  fc.string({ unit: fc.constantFrom("<", ">", "&", '"', "'", "/", "script", "=", " ", "a", ";", "#", "x") }),
);

describe("escapeHtml", () => {
  it("leaves no <, >, \" or ' and no & that is not one of its five entities", () => {
    fc.assert(
      fc.property(nasty, (s) => {
        const e = escapeHtml(s);
        expect(e).not.toMatch(/[<>"']/);
        expect(e.replace(/&(amp|lt|gt|quot|#39);/g, "")).not.toContain("&");
      }),
      { numRuns: 2000 },
    );
  });

  it("reads back as the original text", () => {
    fc.assert(
      fc.property(nasty, (s) => {
        expect(decode(escapeHtml(s))).toBe(s);
      }),
      { numRuns: 2000 },
    );
  });

  it("is applied to every value html`` interpolates, and only once to fragments it built", () => {
    fc.assert(
      fc.property(nasty, nasty, (a, b) => {
        const inner = html`<b>${b}</b>`;
        expect(html`<p title="${a}">${a}${inner}</p>`.text).toBe(
          `<p title="${escapeHtml(a)}">${escapeHtml(a)}<b>${escapeHtml(b)}</b></p>`,
        );
      }),
    );
  });

  it("escapes a script element as text", () => {
    expect(escapeHtml("<script>window.pwned=1</script>")).toBe("&lt;script&gt;window.pwned=1&lt;/script&gt;");
  });
});
