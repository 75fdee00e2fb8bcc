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

// a citation group, a line break, or a run of terminators followed by whitespace, `[` or the end
const TOKEN = /\[([^[\]\r\n]*)\]|\r?\n|[.!?]+(?=[\s[]|$)/g;

interface Draft {
  text: string;
  citations: string[];
}

/**
 * Split an answer into sentences. A sentence ends at `.`, `!` or `?` (a run of them) followed by
 * whitespace, `[` or the end, and at every line break. `[a]`, `[a, b]` and `[a][b]` are citations;
 * citations right after a sentence's end (only whitespace between) belong to that sentence.
 * Sentences whose normalized text is empty are dropped (their citations go to the one before).
 */
export function splitSentences(answer: string): AnswerSentence[] {
  const out: Draft[] = [];
  let cur: Draft = { text: "", citations: [] };
  let justEnded = false;
  let last = 0;
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
      flush();
      justEnded = true;
    } else {
      cur.text += m[0];
      flush();
      justEnded = true;
    }
  }
  cur.text += answer.slice(last);
  flush();
  return out.map((d) => ({ text: d.text.trim(), normalized: normalize(d.text), citations: d.citations }));
}
