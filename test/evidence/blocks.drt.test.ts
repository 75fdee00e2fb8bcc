// Differential test: forEachBlock (text.ts), which streams a log larger than one read as its UTF-8
// bytes, against the decoding streamer it replaced (decoding-blocks.ts): the same lines with the same
// numbers, the same cuts of long lines, the same hash and the same problem code, over random files
// that put multi-byte characters, invalid sequences and NUL bytes right at 1 MiB read boundaries.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FileProblem, forEachBlock, utf8Of } from "../../src/evidence/text.js";
import { decodingForEachBlock } from "./decoding-blocks.js";

const READ = 1 << 20;

type Streamer = typeof forEachBlock;

function run(stream: Streamer, path: string): unknown {
  const lines: string[] = [];
  try {
    const info = stream(path, (block, first, bytes) => {
      expect(first).toBe(lines.length + 1);
      const parts = block.split("\n").map((l) => (bytes ? utf8Of(l) : l));
      lines.push(...parts);
      return parts.length;
    });
    // a byte-order mark that starts the file: the decoder drops it, the bytes keep it; the scan
    // removes every one (logscan.ts), so lines are compared without them
    return { lines: lines.map((l) => l.replaceAll("\ufeff", "")), info };
  } catch (err) {
    // a problem undoes everything the file wrote (ingestFile drops it and marks it skipped), so how
    // many lines either streamer handed over before it found the problem is not observable: the code is
    if (err instanceof FileProblem) return { code: err.code };
    throw err;
  }
}

const CHARS = ["a", "é", "✓", "😀", "\t", "\u001b[31m", "\ufeff"];
const BAD = [
  [0xff],
  [0xe2, 0x9c],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xc0, 0xaf],
  [0xf0, 0x9f],
  [0x00],
  [0xe0, 0x80],
];

const segment = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .tuple(fc.constantFrom(...CHARS), fc.integer({ min: 0, max: 200_000 }))
      .map(([c, n]) => ({ kind: "text" as const, c, n })),
  },
  { weight: 4, arbitrary: fc.constantFrom("\n", "\r\n").map((eol) => ({ kind: "eol" as const, eol })) },
  // pad with `a` up to `k` bytes before the next read boundary
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 4 }).map((k) => ({ kind: "pad" as const, k })) },
  { weight: 1, arbitrary: fc.constantFrom(...BAD).map((b) => ({ kind: "bad" as const, b })) },
);

type Segment =
  | { kind: "text"; c: string; n: number }
  | { kind: "eol"; eol: string }
  | { kind: "pad"; k: number }
  | { kind: "bad"; b: number[] };

function render(segments: readonly Segment[], bom: boolean): Buffer {
  const parts: Buffer[] = bom ? [Buffer.from("\ufeff")] : [];
  let size = parts.length > 0 ? 3 : 0;
  const add = (b: Buffer): void => {
    parts.push(b);
    size += b.length;
  };
  for (const s of segments) {
    if (s.kind === "text") add(Buffer.from(s.c.repeat(s.n)));
    else if (s.kind === "eol") add(Buffer.from(s.eol));
    else if (s.kind === "bad") add(Buffer.from(s.b));
    else {
      const to = (Math.floor(size / READ) + 1) * READ - s.k;
      if (to > size) add(Buffer.alloc(to - size, 0x61));
    }
  }
  return Buffer.concat(parts);
}

describe("forEachBlock (bytes) = the decoding streamer", () => {
  const dir = mkdtempSync(join(tmpdir(), "tessera-blocks-"));
  it("for random files across 1 MiB reads, valid or not", () => {
    fc.assert(
      fc.property(
        fc.array(segment, { minLength: 1, maxLength: 30 }),
        fc.boolean(),
        fc.boolean(),
        (segments, bom, withBad) => {
          const file = join(dir, "log.txt");
          const kept = withBad ? segments : segments.filter((s) => s.kind !== "bad");
          writeFileSync(file, render(kept, bom));
          expect(run(forEachBlock, file)).toEqual(run(decodingForEachBlock, file));
        },
      ),
      { numRuns: 120 },
    );
  });

  it("for every invalid or incomplete sequence split by a read boundary, with a NUL byte later or not", () => {
    const file = join(dir, "split.txt");
    const seqs = [...BAD, [0xe2, 0x9c, 0x93], [0xf0, 0x9f, 0x98, 0x80], [0xc3, 0xa9], [0xf4, 0x8f, 0xbf, 0xbf]];
    for (const seq of seqs) {
      for (let k = 1; k < seq.length; k++) {
        for (const nul of [false, true]) {
          const head = Buffer.alloc(READ - k, 0x61);
          head[1000] = 0x0a;
          const rest = Buffer.from(`${"b".repeat(10)}\n${nul ? "\u0000" : ""}tail\n`);
          writeFileSync(file, Buffer.concat([head, Buffer.from(seq), rest]));
          expect(run(forEachBlock, file)).toEqual(run(decodingForEachBlock, file));
        }
      }
    }
  });

  it("for a file whose first line is cut, starting with a byte-order mark", () => {
    const file = join(dir, "bom.txt");
    writeFileSync(file, `\ufeff${"é".repeat(700_000)}\nnext line\n${"✓".repeat(30_000)}`);
    const got = run(forEachBlock, file);
    expect(got).toEqual(run(decodingForEachBlock, file));
    expect((got as { lines: string[] }).lines[0]).toBe("é".repeat(65_536));
  });
});
