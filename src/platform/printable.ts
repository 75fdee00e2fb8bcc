/**
 * Text from outside (tool names, argument keys, PR titles, log lines, reasons) made safe to show a
 * person: every character that could move the cursor, recolour, hide or reorder text is escaped as in
 * JSON, so nothing steers the terminal and `order_id` followed by U+200B does not look like `order_id`.
 * Every human-readable output goes through `printable` (adr/0046 names the rule; specs/cli.md).
 * @module
 */

// controls (C0, DEL, C1), format characters (zero-width, bidi, BOM, tags), line and paragraph
// separators, private use, unassigned code points and lone surrogates
const UNSAFE =
  /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/gu;
const NAMED: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

function escaped(c: string): string {
  const cp = c.codePointAt(0)!;
  return cp > 0xffff ? `\\u{${cp.toString(16)}}` : `\\u${cp.toString(16).padStart(4, "0")}`;
}

/**
 * `text` as a person's terminal may show it: unsafe characters escaped (`\n`, `\u001b`, `\u200b`).
 * With `keepLines`, line feeds and tabs stay (for multi-line values).
 */
export function printable(text: string, keepLines = false): string {
  return text.replace(UNSAFE, (c) => (keepLines && (c === "\n" || c === "\t") ? c : (NAMED[c] ?? escaped(c))));
}
