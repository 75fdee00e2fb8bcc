/**
 * Answer sentences and their `[evidence-id]` citations, for the `builtin` evaluator
 * (specs/grading.md, "Sentences and citations").
 * @module
 */
import { normalize } from "../core/normalize.js";

/** One answer sentence: its text without citations, its normalized text and the ids it cites. */
export interface AnswerSentence {
  readonly text: string;
  readonly normalized: string;
  readonly citations: readonly string[];
}

// a citation group, a line break, or a run of terminators (ellipses included)
const TOKEN = /\[([^[\]\r\n]*)\]|\r?\n|[.!?\u2026]+/g;
// an ellipsis never ends a sentence, unless a `!` or `?` comes after it
const ELLIPSIS = /(?:\.\.|\u2026)[.\u2026]*$/;
// what may follow a terminator for it to end a sentence: `[` (a citation), the end, or whitespace
// and then something a sentence can start with (a capital, a digit, a quote or bracket, Markdown
// emphasis or code, a list marker); a lower-case word goes on with the same sentence
const ENDS_AFTER = /\[|\s*$|\s+(?:[\p{Lu}\p{Lt}\p{N}"'\u201c\u2018\u00ab\u201e([{*_`#>\u00bf\u00a1|]|[-+](?:\s|$))/uy;
// a line that starts a Markdown block of its own: blank, a list item, a heading, a quote, a table row, a fence
const BLOCK_START = /[ \t]*(?:\r?\n|$|[-*+][ \t]|\d+[.)][ \t]|#{1,6}(?:[ \t]|\r?\n|$)|>|\||```|~~~)/y;
// a line that is a block of its own, so a line break after it ends it: a heading, a table row, a fence
const BLOCK_LINE = /^[ \t]*(?:#{1,6}(?:[ \t]|$)|\||```|~~~)/;

interface Draft {
  text: string;
  citations: string[];
}

/**
 * Split an answer into sentences. A sentence ends at a run of `.`, `!` or `?` followed by `[`, the
 * end, or whitespace and then what a sentence starts with (not a lower-case word); an ellipsis
 * (`...`, `…`) never ends one. A line break ends one only between Markdown blocks: before a blank
 * line, a list item, a heading, a quote, a table row or a fence, or after a heading, a table row or
 * a fence; a single line break inside a paragraph is a space. `[a]`, `[a, b]` and `[a][b]` are
 * citations; citations right after a sentence's end (only whitespace between) belong to that
 * sentence. Sentences whose normalized text is empty are dropped (their citations go to the one before).
 */
export function splitSentences(answer: string): AnswerSentence[] {
  const out: Draft[] = [];
  let cur: Draft = { text: "", citations: [] };
  let justEnded = false;
  let last = 0;
  let lineStart = 0;
  const flush = (): void => {
    if (normalize(cur.text) !== "") out.push(cur);
    else if (cur.citations.length > 0 && out.length > 0) out[out.length - 1]!.citations.push(...cur.citations);
    else if (cur.citations.length > 0) out.push(cur); // citations with no text: kept, and unsupported (empty)
    cur = { text: "", citations: [] };
  };
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(answer); m !== null; m = TOKEN.exec(answer)) {
    const between = answer.slice(last, m.index);
    if (between.trim() !== "") justEnded = false;
    cur.text += between;
    last = m.index + m[0].length;
    const group = m[1];
    if (group !== undefined) {
      const ids = group
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s !== "");
      const target = justEnded && out.length > 0 && normalize(cur.text) === "" ? out[out.length - 1]! : cur;
      target.citations.push(...ids);
    } else if (m[0].startsWith("\n") || m[0].startsWith("\r")) {
      const line = answer.slice(lineStart, m.index);
      lineStart = last;
      BLOCK_START.lastIndex = last;
      if (BLOCK_LINE.test(line) || BLOCK_START.test(answer)) {
        flush();
        justEnded = true;
      } else cur.text += " "; // a soft line break: the paragraph goes on
    } else {
      cur.text += m[0];
      ENDS_AFTER.lastIndex = last;
      if (!ELLIPSIS.test(m[0]) && ENDS_AFTER.test(answer)) {
        flush();
        justEnded = true;
      } else justEnded = false;
    }
  }
  cur.text += answer.slice(last);
  flush();
  return out.map((d) => ({ text: d.text.trim(), normalized: normalize(d.text), citations: d.citations }));
}
