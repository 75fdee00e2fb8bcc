/**
 * Who may use the review page: one token from `TESSERA_REVIEW_TOKEN` (the reviewer is named
 * `reviewer`) or a `--reviewers` file of named tokens, so each decision records who made it. A
 * presented token is compared with every reviewer's in constant time.
 * @module
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { TesseraError } from "../../platform/errors.js";
import { parseErrorLine, parseJson } from "../../platform/json.js";

/** The environment variable holding the single reviewer token. */
export const REVIEW_TOKEN_ENV = "TESSERA_REVIEW_TOKEN";
/** The shortest token accepted, in characters. */
export const MIN_REVIEW_TOKEN_LENGTH = 16;
/** The name decisions made with `TESSERA_REVIEW_TOKEN` record. */
export const SINGLE_REVIEWER = "reviewer";
/** A reviewer's name: what `decided_by` records. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

/** One reviewer: a name and the digest of their token (the token itself is not kept). */
interface Reviewer {
  readonly name: string;
  readonly digest: Buffer;
}

/** The reviewers a page accepts. */
export interface Reviewers {
  /** The reviewer whose token this is, or null; the time taken does not depend on which matched. */
  identify(token: string): string | null;
  /** How many reviewers there are. */
  readonly size: number;
}

const digestOf = (token: string): Buffer => createHash("sha256").update(token, "utf8").digest();

function reviewersOf(list: readonly Reviewer[]): Reviewers {
  return {
    size: list.length,
    identify(token: string) {
      const presented = digestOf(token);
      let found: string | null = null;
      // every reviewer is compared, so the time does not say which (or whether one) matched
      for (const r of list) if (timingSafeEqual(presented, r.digest) && found === null) found = r.name;
      return found;
    },
  };
}

function checkToken(token: unknown, where: string): string {
  if (typeof token !== "string" || token === "")
    throw new TesseraError("token_missing", `${where}: a token must be a non-empty string`);
  if ([...token].length < MIN_REVIEW_TOKEN_LENGTH)
    throw new TesseraError(
      "token_too_short",
      `${where}: a token must be at least ${MIN_REVIEW_TOKEN_LENGTH} characters`,
    );
  if (/[\s\u0000-\u001f\u007f]/u.test(token))
    throw new TesseraError("input_invalid", `${where}: a token must not contain spaces or control characters`);
  return token;
}

/**
 * The reviewers of a `--reviewers` file: a JSON object of name → token, e.g.
 * `{"alice": "…", "bob": "…"}`; every problem is one line naming the file and the entry.
 */
export function loadReviewersFile(file: string): Reviewers {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "unreadable";
    throw new TesseraError("input_not_found", `cannot read the reviewers file \`${file}\`: ${code}`);
  }
  let value: unknown;
  try {
    value = parseJson(text);
  } catch (err) {
    throw new TesseraError("input_invalid", `${file}: not valid JSON: ${parseErrorLine(err)}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new TesseraError("input_invalid", `${file}: must be a JSON object of reviewer name → token`);
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) throw new TesseraError("input_invalid", `${file}: names no reviewer`);
  const seen = new Map<string, string>();
  const list: Reviewer[] = [];
  for (const [name, token] of entries) {
    const where = `${file}: ${JSON.stringify(name)}`;
    if (!NAME.test(name))
      throw new TesseraError(
        "input_invalid",
        `${where}: a reviewer name is 1 to 64 letters, digits, \`.\`, \`_\`, \`@\` or \`-\`, starting with a letter or digit`,
      );
    const t = checkToken(token, where);
    const other = seen.get(t);
    if (other !== undefined)
      throw new TesseraError("input_invalid", `${where}: has the same token as ${JSON.stringify(other)}`);
    seen.set(t, name);
    list.push({ name, digest: digestOf(t) });
  }
  return reviewersOf(list);
}

/** The single reviewer of `TESSERA_REVIEW_TOKEN`; no page without one (the CLI exits 2). */
export function reviewerFromEnv(env: Readonly<Record<string, string | undefined>>): Reviewers {
  const token = env[REVIEW_TOKEN_ENV];
  if (token === undefined || token === "")
    throw new TesseraError(
      "token_missing",
      `\`review serve\` needs a reviewer token: set \`${REVIEW_TOKEN_ENV}\` (at least ${MIN_REVIEW_TOKEN_LENGTH} characters) or give \`--reviewers <file>\`; refusing to serve without one`,
    );
  return reviewersOf([{ name: SINGLE_REVIEWER, digest: digestOf(checkToken(token, `\`${REVIEW_TOKEN_ENV}\``)) }]);
}
