/**
 * The one way text reaches the review page's HTML: every value from a tool call, a definition, a
 * reason or the store goes through `escapeHtml`, in element content and in quoted attributes alike.
 * @module
 */

const ENTITY: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** `text` safe in HTML element content and in a double- or single-quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITY[c]!);
}

/** An HTML fragment already escaped (built by `html`), so it is not escaped twice. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Part = Html | string | number | null | undefined | readonly Part[];

function render(part: Part): string {
  if (part === null || part === undefined) return "";
  if (part instanceof Html) return part.text;
  if (Array.isArray(part)) return (part as readonly Part[]).map(render).join("");
  return escapeHtml(String(part));
}

/** A template tag: literal HTML with every interpolated value escaped, except fragments it built. */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new Html(out);
}
