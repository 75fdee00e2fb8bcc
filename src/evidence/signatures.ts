/**
 * Failure-signature selection over CI output (specs/failure-signatures.md, adr/0016). Each cleaned
 * log line is classified as `specific` (names what went wrong), `summary` (a tool's trailer that
 * repeats or counts failures) or `generic` (an exit status); the signature is chosen from those
 * classes so a generic line never wins over anything more specific.
 * @module
 */

/** How much a line says about a failure; `null` from `classifyLine` means it is not error-bearing. */
export type LineTier = "specific" | "summary" | "generic";

/** A classified line: its tier and the name of the rule that matched (the spec's `rule` column). */
export interface LineClass {
  readonly tier: LineTier;
  readonly rule: string;
}

type Rule = readonly [name: string, re: RegExp];

// INVARIANT: generic rules are tried before summary rules, and both before specific rules, so a
// trailer such as `npm ERR! code ELIFECYCLE` never matches the broader specific `npm` rule.
const GENERIC: readonly Rule[] = [
  ["exit-code", /^(?:Error: )?Process completed with exit code \d+\.?$/],
  ["exit-code", /^The process '[^']*' failed with exit code \d+\.?$/],
  ["exit-code", /^(?:error |ELIFECYCLE\s+)?Command failed with exit code \d+\.?$/i],
  ["exit-code", /^exit status \d+$/],
  ["exit-code", /^Exited with code (?:exit status )?\d+$/],
  ["exit-code", /^Error: exit code \d+$/i],
  ["make", /^make(?:\[\d+\])?: \*\*\* .*Error \d+$/],
];

const NPM_TRAILER =
  /^npm (?:ERR!|error)(?:\s*$| (?:code \S+|errno \S+|A complete log of this run can be found in|Failed at the |This is probably not a problem with npm|Exit status \d+|Test failed\.|Lifecycle script `[^`]*` failed|path \S+|command (?:failed|sh |bash |\S+ -c)|workspace |location |signal |\S+@\S+ \S+: `))/;

const SUMMARY: readonly Rule[] = [
  ["npm-trailer", NPM_TRAILER],
  ["test-summary", /^(?:Test Files|Tests|Test Suites):?\s+\d+ failed\b/],
  ["test-summary", /^\d+ (?:failing|failed)\b/],
  ["test-summary", /Failed Tests? \d+/],
  ["go-summary", /^FAIL$/],
  ["go-summary", /^FAIL\s+\S+\s+(?:\(?[\d.]+m?s\)?|\[(?:build|setup) failed\])$/],
  ["pytest-summary", /^=+ (?:FAILURES|ERRORS) =+$/],
  ["pytest-summary", /^=+ .*\b\d+ (?:failed|errors?)\b.*=+$/],
  ["traceback", /^Traceback \(most recent call last\):$/],
  [
    "cargo-summary",
    /^error: (?:could not compile |test failed, to rerun pass |aborting due to |build failed|\d+ targets? failed)/,
  ],
  ["cargo-summary", /^test result: FAILED\./],
  ["maven-trailer", /^\[ERROR\]\s*$/],
  [
    "maven-trailer",
    /^\[ERROR\] (?:-> \[Help 1\]|To see the full stack trace|Re-run Maven using|For more information about the errors|\[Help 1\]|Failed to execute goal|COMPILATION ERROR|Tests run: .*Failures|Failures:\s*$|Errors:\s*$|After correcting the problems|BUILD FAILURE)/,
  ],
  ["build-failure", /^(?:\[INFO\] )?BUILD FAILURE$/],
  ["gradle-trailer", /^> Task \S+ FAILED$/],
  ["gradle-trailer", /^FAILURE: Build failed with an exception\.$/],
  ["gradle-trailer", /^BUILD FAILED(?: in .*)?$/],
  ["gradle-trailer", /^Execution failed for task '[^']*'\.$/],
  ["gradle-trailer", /^\d+ tests? completed, \d+ failed/],
  ["gradle-trailer", /^There were failing tests\./],
  ["docker-trailer", /^ERROR: failed to (?:solve|build)\b/],
  ["docker-trailer", /^(?:ERROR|error): process ".*" did not complete successfully: exit code: \d+$/],
  ["docker-trailer", /^ERROR \[[^\]]*\] /],
  ["docker-trailer", /^failed to solve with frontend /],
  ["docker-trailer", /^ERROR: Service '[^']*' failed to build/],
];

const SPECIFIC: readonly Rule[] = [
  ["typescript", /\berror TS\d+:/],
  ["npm", /^npm (?:ERR!|error) \S/],
  ["test-failed", /^(?:FAIL|✗|×|✕)\s+\S/],
  ["test-failed", /^●\s+(?!Console$)\S/],
  ["pytest-failed", /^(?:FAILED|ERROR) \S+(?:\.py|::)\S*(?: - .*)?$/],
  ["go-test", /^--- FAIL: /],
  ["panic", /^panic: /],
  ["go-file", /^\S+\.go:\d+(?::\d+)?: /],
  ["rust-panic", /^thread '[^']*' panicked at /],
  ["cargo-test", /^test \S+ \.\.\. FAILED$/],
  ["compiler", /^error(?:\[E\d+\])?: /],
  ["compiler", /^\S+:\d+(?::\d+)?: (?:fatal )?error\b/],
  ["compiler", /^e: \S/],
  ["maven-error", /^\[ERROR\] \S/],
  ["gradle-test", /^\S+ > .* FAILED$/],
  ["docker", /^Error response from daemon: /],
  ["fatal", /^(?:fatal|FATAL ERROR): /],
  ["exception", /^(?:[A-Za-z_$][\w$]*\.)*(?:[A-Za-z_$][\w$]*)?(?:Error|Exception)(?:: .*|$)/],
  ["segfault", /^Segmentation fault\b/],
];

const GITHUB_ERROR = /^(?:##\[error\]|::error(?: [^:]*)?::)/;
const DOCKER_STEP = /^#\d+ (?:\d+(?:\.\d+)? )?/;
const PYTEST_E = /^E\s{2,}\S/;

function match(rules: readonly Rule[], s: string): string | null {
  for (const [name, re] of rules) if (re.test(s)) return name;
  return null;
}

// cheap test that lets most lines of a large log skip every rule
const MAYBE = /err|fail|panic|exit|fatal|exception|segmentation|traceback|^e: |^[●×✗✕]|\.go:\d/i;

/**
 * Finds lines that may be error-bearing in raw log text (prefixes still on), decoded or as its UTF-8
 * bytes spelled one character per byte (latin1): a superset of the lines `classifyLine` classifies,
 * so a scan can clean and classify only the lines it matches. A match that is exactly `e: ` counts
 * only where `candidateAt` says so (a look-behind in the pattern would halve its speed).
 * INVARIANT: every rule of this file needs one of these fragments in the line; a non-ASCII
 * whitespace or mark is also found by its UTF-8 bytes (`[\x80-\xff]`, `\xe2\x97\x8f` for `●`).
 */
export const CANDIDATE =
  /err|fail|panic|exit|fatal|exception|segmentation|traceback|e(?:[^\S\n]|[\x80-\xff]+)(?:[^\S\n]|[\x80-\xff])|e: |[●×✗✕]|\xe2\x97\x8f|\xe2\x9c[\x95\x97]|\xc3\x97|\.go:\d/gi;

const E_COLON_AFTER = /[^\S\n]|[\]\x80-\uffff]/;

/**
 * Whether a `CANDIDATE` match `m` in `text` marks a candidate line: an `e: ` only at a line start or
 * after whitespace, `]` or a non-ASCII character (`e: ` of Kotlin's compiler, `##[error]e: `).
 */
export function candidateAt(text: string, m: RegExpExecArray): boolean {
  const x = m[0];
  if (x.length !== 3 || x.charCodeAt(1) !== 58) return true;
  const i = m.index;
  if (i === 0) return true;
  const c = text.charAt(i - 1);
  return c === "\n" || E_COLON_AFTER.test(c);
}

/**
 * Classify one cleaned log line (timestamps, ANSI escapes and job/step prefixes already removed).
 * @example classifyLine("src/a.ts(3,7): error TS2322: Type 'string' is not assignable") // { tier: "specific", rule: "typescript" }
 */
export function classifyLine(text: string): LineClass | null {
  let s = text;
  let marked = false;
  const gh = GITHUB_ERROR.exec(s);
  if (gh !== null) {
    marked = true;
    s = s.slice(gh[0].length);
  }
  const docker = DOCKER_STEP.exec(s);
  if (docker !== null) s = s.slice(docker[0].length);
  if (!marked && PYTEST_E.test(s)) return { tier: "specific", rule: "pytest-assert" };
  const u = s.trim();
  if (u === "") return marked ? { tier: "generic", rule: "github-error" } : null;
  if (!marked && !MAYBE.test(u)) return null;
  const g = match(GENERIC, u);
  if (g !== null) return { tier: "generic", rule: g };
  const m = match(SUMMARY, u);
  if (m !== null) return { tier: "summary", rule: m };
  const x = match(SPECIFIC, u);
  if (x !== null) return { tier: "specific", rule: x };
  return marked ? { tier: "specific", rule: "github-error" } : null;
}

const MARKER = /^(?:##\[(?:group|endgroup|debug|command|section|endsection)\]|::(?:group|endgroup|debug)::)/;

/** A line that carries output: not blank, not a log marker, with at least one letter or digit. */
export function isMeaningful(text: string): boolean {
  const c = text.charCodeAt(0);
  // fast path: most lines start with an ASCII letter or digit (a marker starts with `#` or `:`)
  if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)) return true;
  if (MARKER.test(text)) return false;
  return LETTER_OR_DIGIT.test(text);
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** One line as the selector sees it. */
export interface ScannedLine {
  readonly line: number;
  readonly text: string;
}

/** Why the signature is the line it is. */
export type SignatureBasis = "first_specific" | "before_trailer" | "first_summary" | "last_output";

/** The chosen signature line, or none for a log with no meaningful output. */
export interface Signature<L extends ScannedLine = ScannedLine> {
  readonly line: L;
  readonly basis: SignatureBasis;
}

/**
 * Incremental signature selection, fed line by line so a large log is never held in memory:
 * the first specific line; else the last meaningful line before the first summary or generic line;
 * else the first summary line; else the last meaningful line.
 */
export class SignatureSelector<L extends ScannedLine = ScannedLine> {
  private firstSpecific: L | undefined;
  private firstSummary: L | undefined;
  private lastMeaningful: L | undefined;
  private beforeTrailer: L | undefined;
  private trailerSeen = false;

  /** Feed the next line with its class (from `classifyLine`). */
  push(line: L, cls: LineClass | null): void {
    if (this.firstSpecific !== undefined) return;
    if (cls === null) {
      if (isMeaningful(line.text)) this.lastMeaningful = line;
      return;
    }
    if (cls.tier === "specific") {
      this.firstSpecific = line;
      return;
    }
    if (cls.tier === "summary" && this.firstSummary === undefined) this.firstSummary = line;
    if (!this.trailerSeen) {
      this.trailerSeen = true;
      this.beforeTrailer = this.lastMeaningful;
    }
  }

  /** Whether a specific line was fed: nothing fed after it changes the signature. */
  hasSpecific(): boolean {
    return this.firstSpecific !== undefined;
  }

  /** Record `line` as the last meaningful unclassified line so far, for a scan that skips such lines. */
  setLastMeaningful(line: L): void {
    if (this.firstSpecific === undefined) this.lastMeaningful = line;
  }

  /** The signature of everything fed so far. */
  result(): Signature<L> | undefined {
    if (this.firstSpecific !== undefined) return { line: this.firstSpecific, basis: "first_specific" };
    if (this.beforeTrailer !== undefined) return { line: this.beforeTrailer, basis: "before_trailer" };
    if (this.firstSummary !== undefined) return { line: this.firstSummary, basis: "first_summary" };
    if (this.lastMeaningful !== undefined) return { line: this.lastMeaningful, basis: "last_output" };
    return undefined;
  }
}

/** The signature of a whole log given as cleaned lines (line numbers from 1). */
export function selectSignature(lines: readonly string[]): Signature | undefined {
  const sel = new SignatureSelector();
  lines.forEach((text, i) => {
    sel.push({ line: i + 1, text }, classifyLine(text));
  });
  return sel.result();
}
