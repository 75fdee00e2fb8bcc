// Differential tests: the streaming pieces against deliberately naive whole-input references.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { blockLines } from "./naive-lines.js";

describe("forEachBlock = split of the whole file", () => {
  it("across 1 MiB read boundaries, with multi-byte characters and CRLF", () => {
    const dir = mkdtempSync(join(tmpdir(), "tessera-lines-"));
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.integer({ min: 0, max: 300_000 }),
            fc.constantFrom("a", "é", "✓", "😀", "\t"),
            fc.constantFrom("\n", "\r\n"),
          ),
          { minLength: 1, maxLength: 12 },
        ),
        fc.boolean(),
        (parts, trailingNewline) => {
          let text = parts.map(([n, ch, eol]) => ch.repeat(Math.max(1, Math.floor(n / ch.length))) + eol).join("");
          if (!trailingNewline) text = text.replace(/\r?\n$/, "");
          if (text === "") text = "x";
          const file = join(dir, "log.txt");
          writeFileSync(file, text);
          const { lines: got, bytes } = blockLines(file);
          const info = { bytes };
          const whole = readFileSync(file, "utf8").split("\n");
          if (whole[whole.length - 1] === "") whole.pop();
          // lines over 64 KiB are cut, and the rest of such a line is skipped
          expect(got).toEqual(whole.map((l) => (l.length > 65536 ? l.slice(0, 65536) : l)));
          expect(info.bytes).toBe(Buffer.byteLength(text));
        },
      ),
      { numRuns: 40 },
    );
  });
});
