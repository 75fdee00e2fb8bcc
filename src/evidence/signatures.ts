/**
 * Failure-signature selection over CI output (specs/failure-signatures.md, adr/0016, adr/0075). Each
 * cleaned log line is classified as `specific` (names what went wrong), `summary` (a tool's trailer
 * that repeats or counts failures) or `generic` (an exit status) by a named rule; every classified
 * line is a candidate whose score is the sum of named reasons (the rule's weight, a file:line or
 * error code, the failing step's window, a header's detail line, …). The top score is the signature
 * (ties: the earliest line), the next ones its ranked alternatives.
 * @module
 */

/** How much a line says about a failure; `null` from `classifyLine` means it is not error-bearing. */
export type LineTier = "specific" | "summary" | "generic";

/** A classified line: its tier and the name of the rule that matched (the spec's `rule` column). */
export interface LineClass {
  readonly tier: LineTier;
  readonly rule: string;
}

/**
 * The version of the rules and weights below: a workspace store keeps each log's signature, so a
 * change of rules bumps it and the store is rebuilt (2: eslint, rspec, the shell's `Killed` job
 * message, the Go race detector's testing note).
 */
export const SIGNATURE_RULES_VERSION = 2;

type Rule = readonly [name: string, re: RegExp];

// INVARIANT: generic rules are tried before summary rules, and both before specific rules, so a
// trailer such as `npm ERR! code ELIFECYCLE` never matches the broader specific `npm` rule.
const INFRA: readonly Rule[] = [
  [
    "infra-cancelled",
    /^(?:The operation was canceled\.|The (?:job|run|build|workflow) (?:was|has been) cancell?ed\b.*)$/i,
  ],
  [
    "infra-timeout",
    /has exceeded the maximum execution time|^The job exceeded the maximum time limit|^No output has been received in the last \S+|^ERROR: Job failed: execution took longer than|^Build timed out\b|^Timeout: .*timed out after/i,
  ],
  ["infra-exit", /\bexit(?:ed with)?(?: code| status)?:? (?:124|137)\b/i],
  [
    "infra-killed",
    /^Killed$|: line \d+:\s+\d+ Killed\s+\S|\bKilled signal terminated program\b|^signal: killed$|\bOOMKilled\b/,
  ],
  ["infra-oom", /\bout of memory\b|\bCannot allocate memory\b|\bheap out of memory\b/i],
  ["infra-disk", /\bNo space left on device\b/i],
  [
    "infra-network",
    /\b(?:Could not resolve host|Temporary failure in name resolution|TLS handshake timeout|i\/o timeout|network is unreachable|502 Bad Gateway|503 Service Unavailable|Connection reset by peer)\b/i,
  ],
];

const GENERIC: readonly Rule[] = [
  ["exit-code", /^(?:Error: )?Process completed with exit code \d+\.?$/],
  ["ci-step-exit", /^The command ".*" (?:exited|failed and exited) with \d+(?: during .*)?\.$/],
  ["ci-build-exit", /^Done\. Your build exited with \d+\.$/],
  ["ci-job-failed", /^(?:ERROR: Job failed(?::.*)?|Finished: (?:FAILURE|UNSTABLE|ABORTED)|Job failed: .*)$/],
  ["exit-code", /^The process '[^']*' failed with exit code \d+\.?$/],
  ["exit-code", /^(?:error |ELIFECYCLE\s+)?Command failed with exit code \d+\.?$/i],
  ["exit-code", /^exit status \d+$/],
  ["exit-code", /^Exited with code (?:exit status )?\d+$/],
  ["exit-code", /^Error: exit code \d+$/i],
  ["make", /^make(?:\[\d+\])?: \*\*\* .*Error \d+(?: \(ignored\))?$/],
  ["make", /^make(?:\[\d+\])?: \[.*\] Error \d+ \(ignored\)$/],
  ["make", /^\S*Makefile:\d+: recipe for target '[^']*' failed$/],
  ["wrapper", /^(?:Error: )?One or more errors occurred\.?$/],
  ["wrapper", /^(?:Error: )?Command failed: /],
];

const NPM_TRAILER =
  /^npm (?:ERR!|error)(?:\s*$| (?:code \S+|errno \S+|A complete log of this run can be found in|Failed at the |This is probably not a problem with npm|Exit status \d+|Test failed\.|Lifecycle script `[^`]*` failed|path \S+|command (?:failed|sh |bash |\S+ -c)|workspace |location |signal |\S+@\S+ \S+: `))/;

const SUMMARY: readonly Rule[] = [
  ["npm-trailer", NPM_TRAILER],
  ["test-summary", /^(?:Test Files|Tests|Test Suites):?\s+\d+ failed\b/],
  ["mocha-failing", /^\d+ failing$/],
  ["test-summary", /^\d+ (?:failing|failed)\b/],
  ["test-summary", /^\d+ examples?, \d+ failures?\b/],
  ["eslint-summary", /^✖ \d+ problems? \(\d+ errors?, \d+ warnings?\)$/],
  ["test-summary", /^\d+ (?:doctests?, )?(?:\d+ )?(?:tests?|properties), \d+ failures?\b/],
  ["phpunit-failures", /^There (?:was|were) \d+ (?:failure|error|risky test)s?:$/],
  ["test-summary", /^(?:FAILURES!|ERRORS!|Tests: \d+, Assertions: \d+, (?:Failures|Errors): \d+.*)$/],
  ["test-summary", /^(?:Failed tests|Tests in error):\s+\S/],
  ["test-summary", /^Tests run: \d+, Failures: (?:[1-9]|0, Errors: [1-9])/],
  ["test-summary", /^\d+ runs, \d+ assertions, \d+ failures, \d+ errors/],
  ["test-summary", /^Build FAILED\.?$/],
  ["test-summary", /^\d+ Error\(s\)$/],
  ["cmake-summary", /^-- Configuring incomplete, errors occurred!$/],
  ["cmake-summary", /^See also ".*CMake(?:Error|Output)\.log"\.?$/],
  ["test-summary", /Failed Tests? \d+/],
  ["go-summary", /^FAIL$/],
  // the testing package's note after a `WARNING: DATA RACE` report: it repeats the race, it is no test's detail
  ["go-summary", /^testing\.go:\d+: race detected during execution of test$/],
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
  ["gradle-task-failed", /^Execution failed for task '[^']*'\.$/],
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
  ["msbuild", /\(\d+(?:,\d+)*\): (?:fatal )?error [A-Z]+\d+: /],
  ["gcc-driver", /^\S+: fatal error: /],
  ["lint", /^\S+:\d+:\d+: [A-Z]{1,3}\d{2,4}\b/],
  ["eslint", /^\d+:\d+\s+error\s+\S/],
  ["rspec-failure", /^Failure\/Error: \S/],
  ["go-race", /^WARNING: DATA RACE$/],
  ["sanitizer", /^==\d+==ERROR: \w+Sanitizer: /],
  ["surefire-test", /^(?!Tests run:)\S.* <<< (?:FAILURE|ERROR)!$/],
  ["exunit-test", /^\d+\) (?:test|doctest|property) .+$/],
  ["exunit-raise", /^\*\* \([\w.]+\) \S/],
  ["cmake-error-at", /^CMake Error at .+:\d+ \(\w+\):$/],
  ["cmake-error", /^CMake Error(?: at .+)?: \S/],
  ["minitest-failure", /^(?:\d+\) )?(?:Failure|Error):$/],
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
  ["maven-compiler", /^\[ERROR\] \S+\.\w+:\[\d+(?:,\d+)?\] /],
  ["maven-error", /^\[ERROR\] \S/],
  ["gradle-test", /^\S+ > .* FAILED$/],
  ["docker", /^Error response from daemon: /],
  ["fatal", /^(?:fatal|FATAL ERROR): /],
  ["error-prefix", /^Error: \S/],
  ["exception", /^(?:[A-Za-z_$][\w$]*\.)*(?:[A-Za-z_$][\w$]*)?(?:Error|Exception)(?::(?: .*|$))/],
  ["exception", /^(?:[A-Za-z_$][\w$]*\.)+[A-Za-z_$][\w$]*(?:Error|Exception)$/],
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
const MAYBE =
  /err|fail|panic|exit|fatal|exception|segmentation|traceback|^e: |^[●×✗✕]|\.go:\d|cancel|killed|memory|exceeded|timed out|no output|no space|data race|\) (?:test|doctest|property) |\*\* \(|: [A-Z]{1,3}\d\d/i;

/**
 * Finds lines that may be error-bearing in raw log text (prefixes still on), decoded or as its UTF-8
 * bytes spelled one character per byte (latin1): a superset of the lines `classifyLine` classifies,
 * so a scan can clean and classify only the lines it matches. A match that is exactly `e: ` counts
 * only where `candidateAt` says so (a look-behind in the pattern would halve its speed).
 * INVARIANT: every rule of this file needs one of these fragments in the line; a non-ASCII
 * whitespace or mark is also found by its UTF-8 bytes (`[\x80-\xff]`, `\xe2\x97\x8f` for `●`).
 */
export const CANDIDATE =
  /err|fail|panic|exit|fatal|exception|segmentation|traceback|e(?:[^\S\n]|[\x80-\xff]+)(?:[^\S\n]|[\x80-\xff])|e: |[●×✗✕]|\xe2\x97\x8f|\xe2\x9c[\x95\x97]|\xc3\x97|\.go:\d|cancel|killed|memory|exceeded|timed out|no output|no space|data race|\[group\]run |post job cleanup|section_start|\) (?:test|doctest|property) |\*\* \(|: [A-Z]{1,3}\d\d/gi;

/**
 * The fragments of `CANDIDATE` most lines of a log have none of: a block without them is searched
 * with `CANDIDATE_COMMON` alone, which is twice as fast (a long alternation defeats the regular
 * expression engine's quick first-character check).
 */
export const CANDIDATE_RARE =
  /cancel|killed|memory|exceeded|timed out|no output|no space|data race|\[group\]run |post job cleanup|section_start|\) (?:test|doctest|property) |\*\* \(|: [A-Z]{1,3}\d\d/i;

/** `CANDIDATE` without the `CANDIDATE_RARE` fragments. */
export const CANDIDATE_COMMON =
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
  const inf = match(INFRA, u);
  if (inf !== null) return { tier: "specific", rule: inf };
  const g = match(GENERIC, u);
  if (g !== null) return { tier: "generic", rule: g };
  const m = match(SUMMARY, u);
  if (m !== null) return { tier: "summary", rule: m };
  const x = match(SPECIFIC, u);
  if (x !== null) return { tier: "specific", rule: x };
  return marked ? { tier: "specific", rule: "github-error" } : null;
}

const MARKER =
  /^(?:##\[(?:group|endgroup|debug|command|section|endsection)\]|::(?:group|endgroup|debug)::|travis_(?:fold|time):|section_(?:start|end):\d+:)/;
// a line that reports a test or step that passed: never a signature, not even as a fallback
const PASSING = /^(?:PASS|ok|✓|✔|√)\s|\sPASSED(?:\s|$)/;

/**
 * A line that carries output: not blank, not a log marker (GitHub groups, Travis fold/time and
 * GitLab section markers), with at least one letter or digit.
 */
export function isMeaningful(text: string): boolean {
  const c = text.charCodeAt(0);
  // fast path: most lines start with an ASCII letter or digit (a marker starts with `#`, `:`, `t` or `s`)
  if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122))
    return !((c === 116 || c === 115) && MARKER.test(text));
  if (MARKER.test(text)) return false;
  return LETTER_OR_DIGIT.test(text);
}

/** A line that reports a passing test or package: output, but never a signature, not even as a fallback. */
export function isPassing(text: string): boolean {
  return PASSING.test(text.trimStart());
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** One line as the selector sees it; `step` (a `gh` log's step name, `-` when unknown) bounds a step's window. */
export interface ScannedLine {
  readonly line: number;
  readonly text: string;
  readonly step?: string;
}

/** One named contribution to a candidate's score (specs/failure-signatures.md §2). */
export interface ScoreReason {
  readonly reason: string;
  readonly points: number;
}

/** A scored candidate line: the rule that made it one, its score and the reasons that sum to it. */
export interface RankedLine<L extends ScannedLine = ScannedLine> {
  readonly line: L;
  readonly rule: string;
  readonly score: number;
  readonly reasons: readonly ScoreReason[];
}

/**
 * Why the signature is the line it is: `top_score` (the best-scored classified line),
 * `before_trailer` (no classified line beats the last output before the first trailer) or
 * `last_output` (no error-bearing line at all).
 */
export type SignatureBasis = "top_score" | "before_trailer" | "last_output";

/** The chosen signature line with its score, and the ranked candidates (the signature first). */
export interface Signature<L extends ScannedLine = ScannedLine> extends RankedLine<L> {
  readonly basis: SignatureBasis;
  /**
   * The best candidates, best first, one per distinct text; `ranked[0]` is the signature itself and
   * every other is a classified line (the last output before a trailer is never an alternative).
   */
  readonly ranked: readonly RankedLine<L>[];
}

/** How many ranked candidates a signature keeps (the signature and its alternatives, for `--explain`). */
export const MAX_RANKED = 5;

/**
 * The weight of each rule (the `rule:<name>` reason). A test or compile failure outweighs an
 * infrastructure outcome, which outweighs a bare exception or `##[error]` line; summaries and
 * trailers weigh least. Rules not listed weigh by tier: specific 45, summary 10, generic 0.
 */
export const RULE_WEIGHTS: Readonly<Record<string, number>> = {
  typescript: 60,
  msbuild: 60,
  "gcc-driver": 60,
  lint: 60,
  eslint: 60,
  "rspec-failure": 60,
  compiler: 60,
  "go-file": 60,
  "go-test": 60,
  "go-race": 65,
  sanitizer: 65,
  panic: 60,
  "rust-panic": 60,
  "test-failed": 60,
  "pytest-assert": 60,
  "pytest-failed": 55,
  "cargo-test": 55,
  "gradle-test": 55,
  "surefire-test": 60,
  "exunit-test": 60,
  "exunit-raise": 58,
  "cmake-error": 60,
  "cmake-error-at": 50,
  "minitest-failure": 40,
  "maven-compiler": 60,
  "maven-error": 30,
  npm: 45,
  docker: 45,
  fatal: 45,
  segfault: 50,
  exception: 35,
  "error-prefix": 25,
  "github-error": 25,
  "infra-cancelled": 44,
  "infra-timeout": 44,
  "infra-exit": 44,
  "infra-killed": 44,
  "infra-oom": 44,
  "infra-disk": 44,
  "infra-network": 44,
  "gradle-task-failed": 15,
  "before-trailer": 12,
  "last-output": 1,
};

const TIER_WEIGHT: Readonly<Record<LineTier, number>> = { specific: 45, summary: 10, generic: 0 };

/**
 * Header rules whose next non-blank line (within `within` lines) is the detail: the detail line
 * scores `points` (rule `<header>-detail`) and the header stays a lower-ranked alternate. `re`, when
 * set, is what the detail must look like; `report` opens a failure report (see `REPORT_RULES`).
 */
export const HEADERS: Readonly<Record<string, { points: number; within: number; re?: RegExp }>> = {
  "cmake-error-at": { points: 62, within: 2 },
  "minitest-failure": { points: 62, within: 2 },
  "phpunit-failures": { points: 62, within: 3, re: /^\d+\) \S/ },
  "go-test": { points: 62, within: 1, re: /^\S+\.go:\d+: / },
  "gradle-task-failed": { points: 45, within: 1, re: /^> \S/ },
};

/** Summary rules after which an exception line is the failing test's error (`in_failure_report`). */
export const REPORT_RULES: ReadonlySet<string> = new Set([
  "mocha-failing",
  "phpunit-failures",
  "traceback",
  "pytest-summary",
]);
const REPORTED = new Set(["exception", "error-prefix", "exunit-raise"]);

/** Step-window markers (GitHub's step group and post-job cleanup, GitLab's sections). */
const STEP_START = /^(?:##\[group\]Run |section_start:\d+:)/;
const POST_JOB = /^Post job cleanup\.$/;
/** Exit lines that close the current step: rule → whether the step failed (`null`: read the exit status). */
const STEP_EXITS: Readonly<Record<string, boolean | null>> = {
  "exit-code": true,
  "ci-step-exit": null,
  "ci-job-failed": true,
  "infra-exit": true,
};
const EXIT_STATUS = /(\d+)(?: during .*)?\.$/;

// a file:line (`a.go:12`, `A.java:[3,4]`, `x.cs(20,40)`, `(Foo.java:9)`) or an error code (`TS2322`, `E0425`, `CS0103`)
const LOCATION = /\.[A-Za-z]\w*(?::\[?\d+|\(\d+)|\b(?:[A-Z]{1,4}\d{3,5}|E\d{4})\b/;

/** Points for where a candidate's step ended. */
// a line of a step that succeeded (or of post-job cleanup) is no candidate at all (`rank`), so adding
// a passing step never changes the signature
const STEP_POINTS = {
  failed: { reason: "failing_step", points: 20 },
  succeeded: { reason: "succeeded_step", points: -100 },
  post: { reason: "after_job", points: -100 },
} as const;
const REPORT_POINTS = 25;
const LOCATION_POINTS = 5;
/** Candidates kept while streaming; beyond it the lowest-scored are dropped (memory stays bounded). */
const POOL_LIMIT = 256;

interface Entry<L> {
  readonly line: L;
  readonly rule: string;
  readonly reasons: ScoreReason[];
  readonly step: string;
}

/**
 * Incremental, ranked signature selection, fed line by line so a large log is never held in memory.
 * Every classified line becomes a scored candidate; markers and exit lines delimit step windows
 * whose outcome adds or removes points; a header asks for the line after it (`wantsNext`).
 */
export class SignatureSelector<L extends ScannedLine = ScannedLine> {
  private pool: Entry<L>[] = [];
  private segment = 0;
  private readonly outcome = new Map<string, keyof typeof STEP_POINTS>();
  private expect: { header: string; left: number; points: number; re: RegExp | undefined } | undefined;
  private inReport = false;
  private lastMeaningful: L | undefined;
  private beforeTrailer: { line: L; step: string } | undefined;
  private trailerSeen = false;

  /**
   * The window a line belongs to: its own `gh` step name (when the log names one) and the count of
   * window markers seen so far — never state from unclassified lines, which a fast scan skips.
   */
  private stepOf(line: L): string {
    const step = line.step ?? "-";
    if (step !== this.keyStep || this.segment !== this.keySegment) {
      this.keyStep = step;
      this.keySegment = this.segment;
      this.key = `${step}#${this.segment}`;
    }
    return this.key;
  }

  // the last window key built, reused while the step and segment stay the same
  private keyStep = "-";
  private keySegment = 0;
  private key = "-#0";

  /** Start the next window; the one before it succeeded unless an exit line said otherwise. */
  private nextSegment(current: string, at: number): void {
    if (!this.outcome.has(current)) this.close(current, "succeeded", at);
    this.segment++;
    this.inReport = false;
  }

  private close(step: string, outcome: keyof typeof STEP_POINTS, at: number): void {
    this.outcome.set(step, outcome);
    if (outcome !== "failed") {
      this.closedAt = at;
      this.lastMeaningful = undefined;
    }
    // a trailer inside a step that succeeded is not the failure's: wait for the next one
    if (outcome !== "failed" && this.trailerSeen && this.trailerStep === step) {
      this.beforeTrailer = undefined;
      this.trailerSeen = false;
    }
  }

  private trailerStep = "";
  /** The line that closed the last window that succeeded: output before it is never the last output. */
  private closedAt = 0;

  /** Feed the next line with its class (from `classifyLine`); unclassified lines may be fed too. */
  push(line: L, cls: LineClass | null): void {
    const step = this.stepOf(line);
    const text = line.text.trim();
    const expect = this.expect;
    if (expect !== undefined) {
      if (text === "" || !LETTER_OR_DIGIT.test(text)) {
        if (--expect.left <= 0) this.expect = undefined;
      } else {
        this.expect = undefined;
        // a classified header of its own (Gradle's `Execution failed for task …` under `What went wrong`) is not a detail
        // nor is a trailer (`make: *** …` right after `CMake Error at …:`)
        const notDetail = cls !== null && (HEADERS[cls.rule] !== undefined || cls.tier !== "specific");
        if (!notDetail && (expect.re === undefined || expect.re.test(text))) {
          this.add(
            line,
            `${expect.header}-detail`,
            [{ reason: `detail_of:${expect.header}`, points: expect.points }],
            step,
          );
          if (cls === null && isMeaningful(line.text)) this.lastMeaningful = line;
          return;
        }
      }
    }
    if (cls === null) {
      if (STEP_START.test(text)) this.nextSegment(step, line.line);
      else if (POST_JOB.test(text)) {
        // the last step before post-job cleanup is where a failed job stopped (later steps are skipped)
        if (!this.outcome.has(step)) this.close(step, "failed", line.line);
        this.nextSegment(step, line.line);
        this.close(this.stepOf(line), "post", line.line);
      } else if (isMeaningful(line.text)) this.lastMeaningful = line;
      return;
    }
    if (cls.tier !== "specific" && !this.trailerSeen) {
      this.trailerSeen = true;
      this.trailerStep = step;
      const before = this.lastMeaningful;
      this.beforeTrailer = before === undefined ? undefined : { line: before, step };
    }
    const exit = STEP_EXITS[cls.rule];
    if (exit !== undefined) {
      let failed = exit;
      if (failed === null) failed = Number(EXIT_STATUS.exec(text)?.[1] ?? "1") !== 0;
      if (!this.outcome.has(step)) this.close(step, failed ? "failed" : "succeeded", line.line);
      this.nextSegment(step, line.line);
    } else if (cls.tier === "generic") this.inReport = false;
    if (cls.tier === "generic") return;
    const reasons: ScoreReason[] = [
      { reason: `rule:${cls.rule}`, points: RULE_WEIGHTS[cls.rule] ?? TIER_WEIGHT[cls.tier] },
    ];
    if (this.inReport && REPORTED.has(cls.rule)) reasons.push({ reason: "in_failure_report", points: REPORT_POINTS });
    this.add(line, cls.rule, reasons, step);
    if (REPORT_RULES.has(cls.rule)) this.inReport = true;
    const h = HEADERS[cls.rule];
    if (h !== undefined) this.expect = { header: cls.rule, left: h.within, points: h.points, re: h.re };
  }

  private add(line: L, rule: string, reasons: ScoreReason[], step: string): void {
    if (LOCATION.test(line.text)) reasons.push({ reason: "location", points: LOCATION_POINTS });
    this.pool.push({ line, rule, reasons, step });
    if (this.pool.length > POOL_LIMIT)
      this.pool = this.rank()
        .slice(0, POOL_LIMIT / 2)
        .map((r) => r.entry);
  }

  /** Whether the last line fed was a header waiting for its detail: feed the next line even if unclassified. */
  wantsNext(): boolean {
    return this.expect !== undefined;
  }

  /** Whether the next summary or generic line is the first trailer (its last output before it may be the signature). */
  awaitsTrailer(): boolean {
    return !this.trailerSeen;
  }

  /** Whether the last meaningful line of the log can still matter (only when nothing else is a candidate). */
  needsLastOutput(): boolean {
    if (this.beforeTrailer !== undefined) return false;
    for (const e of this.pool) {
      const o = this.outcome.get(e.step);
      if (o === undefined || o === "failed") return false;
    }
    return true;
  }

  /** Record `line` as the last meaningful unclassified line so far, for a scan that skips such lines. */
  setLastMeaningful(line: L): void {
    if (line.line > this.closedAt) this.lastMeaningful = line;
  }

  /** The line that closed the last window that succeeded (0 for none): a scan looks for output only after it. */
  outputAfter(): number {
    return this.closedAt;
  }

  /** The candidates by score (ties: earliest); a line of a window that succeeded is never one. */
  private rank(): { entry: Entry<L>; score: number; reasons: ScoreReason[] }[] {
    const live = this.pool.filter((e) => {
      const o = this.outcome.get(e.step);
      return o === undefined || o === "failed";
    });
    const out = live.map((entry) => {
      const o = this.outcome.get(entry.step);
      const reasons = o === undefined ? entry.reasons : [...entry.reasons, STEP_POINTS[o]];
      let score = 0;
      for (const r of reasons) score += r.points;
      return { entry, score, reasons };
    });
    return out.sort((a, b) => b.score - a.score || a.entry.line.line - b.entry.line.line);
  }

  /** The signature of everything fed so far, with the ranked candidates. */
  result(): Signature<L> | undefined {
    // the last output before the trailer, unless it is a passing line (`PASS src/a.test.js`)
    const before =
      this.beforeTrailer !== undefined && !isPassing(this.beforeTrailer.line.text) ? this.beforeTrailer : undefined;
    if (before !== undefined) {
      const reasons = [{ reason: "rule:before-trailer", points: RULE_WEIGHTS["before-trailer"]! }];
      this.pool.push({ line: before.line, rule: "before-trailer", reasons, step: before.step });
    }
    let order = this.rank();
    if (before !== undefined) this.pool.pop();
    const last = this.lastMeaningful;
    if (
      order.length === 0 &&
      this.beforeTrailer === undefined &&
      last !== undefined &&
      last.line > this.closedAt &&
      !isPassing(last.text)
    ) {
      const reasons = [{ reason: "rule:last-output", points: RULE_WEIGHTS["last-output"]! }];
      order = [{ entry: { line: last, rule: "last-output", reasons, step: "" }, score: 1, reasons }];
    }
    const ranked: RankedLine<L>[] = [];
    const texts = new Set<string>();
    for (const r of order) {
      const t = r.entry.line.text.trim();
      // the last output before a trailer is a signature only when it wins, never an alternative
      if (texts.has(t) || (ranked.length > 0 && r.entry.rule === "before-trailer")) continue;
      texts.add(t);
      ranked.push({ line: r.entry.line, rule: r.entry.rule, score: r.score, reasons: r.reasons });
      if (ranked.length >= MAX_RANKED) break;
    }
    const top = ranked[0];
    if (top === undefined) return undefined;
    const basis: SignatureBasis =
      top.rule === "before-trailer" ? "before_trailer" : top.rule === "last-output" ? "last_output" : "top_score";
    return { ...top, basis, ranked };
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
