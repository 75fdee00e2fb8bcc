// Writes the example CI workspace (runs/, logs/, prs/, tickets/) deterministically: no clock, no
// randomness beyond a fixed-seed generator. The written files are committed; rerun after editing:
//   node examples/ci-workspace/generate.mjs
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(fileURLToPath(import.meta.url));
for (const d of ["runs", "logs", "prs", "tickets", "commits"]) {
  rmSync(join(root, d), { recursive: true, force: true });
  mkdirSync(join(root, d), { recursive: true });
}

// a fixed-seed linear congruential generator: the same files on every machine
let seed = 20261130;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const ms = () => 1 + Math.floor(rand() * 40);

const REPO = "https://github.com/acme/storefront";
const ESC = "\u001b";
const red = (s) => `${ESC}[31m${s}${ESC}[39m`;
const green = (s) => `${ESC}[32m${s}${ESC}[39m`;
const dim = (s) => `${ESC}[2m${s}${ESC}[22m`;
const boldRed = (s) => `${ESC}[1m${ESC}[31m${s}${ESC}[39m${ESC}[22m`;

/** A `gh run view --log-failed` writer: job, step, timestamps advancing 37 ms per line, BOM on each step's first line. */
function ghLog(startIso) {
  let t = Date.parse(startIso);
  const lines = [];
  let lastStep = "";
  return {
    line(job, step, text) {
      t += 37;
      const ts = new Date(t).toISOString().replace("Z", "1234Z");
      const bom = step !== lastStep ? "\ufeff" : "";
      lastStep = step;
      lines.push(`${job}\t${step}\t${bom}${ts} ${text}`);
    },
    text(eol = "\n") {
      return lines.join(eol) + eol;
    },
  };
}

function run(id, o) {
  const jobs = o.jobs.map(([name, conclusion, failedStep]) => ({
    name,
    conclusion,
    status: "completed",
    databaseId: id * 10 + o.jobs.findIndex((j) => j[0] === name),
    steps: [
      { name: "Set up job", conclusion: "success", number: 1, status: "completed" },
      { name: "Checkout", conclusion: "success", number: 2, status: "completed" },
      ...(failedStep
        ? [{ name: failedStep, conclusion: "failure", number: 3, status: "completed" }]
        : [{ name: "Test", conclusion, number: 3, status: "completed" }]),
    ],
  }));
  const doc = {
    conclusion: o.conclusion,
    createdAt: o.createdAt,
    databaseId: id,
    displayTitle: o.title,
    event: o.event ?? "push",
    headBranch: o.branch,
    headSha: o.sha,
    jobs,
    status: "completed",
    url: `${REPO}/actions/runs/${id}`,
    workflowName: o.workflow,
  };
  writeFileSync(join(root, "runs", `${id}.json`), `${JSON.stringify(doc, null, 2)}\n`);
}

const setup = (log, job) => {
  log.line(job, "Set up job", "Current runner version: '2.321.0'");
  log.line(job, "Set up job", "Operating System");
  log.line(job, "Set up job", "  Ubuntu 24.04.1 LTS");
  log.line(job, "Set up job", "Runner Image Provisioner");
};

// ---------------------------------------------------------------- 7001: TypeScript (tsc) failure
{
  const job = "typecheck";
  const step = "Run npm run typecheck";
  const log = ghLog("2026-11-02T09:14:05Z");
  log.line(job, step, `##[group]Run npm run typecheck`);
  log.line(job, step, "npm run typecheck");
  log.line(job, step, "shell: /usr/bin/bash -e {0}");
  log.line(job, step, "##[endgroup]");
  log.line(job, step, "");
  log.line(job, step, "> storefront@3.8.0 typecheck");
  log.line(job, step, "> tsc --noEmit -p tsconfig.json");
  log.line(job, step, "");
  log.line(
    job,
    step,
    `src/cart/total.ts(27,9): ${red("error")} ${dim("TS2322:")} Type 'string' is not assignable to type 'Money'.`,
  );
  log.line(
    job,
    step,
    `src/cart/total.ts(41,22): ${red("error")} ${dim("TS2345:")} Argument of type 'number' is not assignable to parameter of type 'Currency'.`,
  );
  log.line(job, step, "");
  log.line(job, step, "Found 2 errors in the same file, starting at: src/cart/total.ts:27");
  log.line(job, step, "");
  log.line(job, step, "##[error]Process completed with exit code 2.");
  writeFileSync(join(root, "logs", "7001.log"), log.text());
  run(7001, {
    title: "Switch cart totals to Money type",
    workflow: "CI",
    conclusion: "failure",
    createdAt: "2026-11-02T09:12:40Z",
    branch: "feat/money-type",
    sha: "4be1c07d9a2f5e3b8c6d1a0f2e4b6c8d0a1b3c5d",
    event: "pull_request",
    jobs: [
      ["typecheck", "failure", "Run npm run typecheck"],
      ["lint", "success"],
    ],
  });
}

// ---------------------------------------------------------------- 7002: passed
run(7002, {
  title: "Fix cart total type after currency refactor",
  workflow: "CI",
  conclusion: "success",
  createdAt: "2026-11-03T11:02:10Z",
  branch: "main",
  sha: "9c3e5a7b1d2f4e6a8b0c2d4e6f8a0b1c3d5e7f90",
  jobs: [
    ["typecheck", "success"],
    ["test", "success"],
  ],
});

// ------------------------------------------------- 7003: vitest failure buried in 3,000 passing tests
const SUITES = [
  "cart",
  "checkout",
  "coupons",
  "inventory",
  "pricing",
  "search",
  "session",
  "shipping",
  "tax",
  "webhooks",
];
const VERBS = [
  "adds",
  "applies",
  "caches",
  "computes",
  "handles error responses for",
  "keeps",
  "merges",
  "parses",
  "rejects",
  "rounds",
  "serializes",
  "validates",
];
const NOUNS = [
  "line items",
  "discounts",
  "empty carts",
  "currency codes",
  "gift cards",
  "partial refunds",
  "locale strings",
  "stale sessions",
  "retries",
  "timeouts",
];
{
  const job = "test";
  const step = "Run npm test";
  const log = ghLog("2026-11-04T14:30:00Z");
  log.line(job, step, "##[group]Run npm test -- --reporter=verbose");
  log.line(job, step, "npm test -- --reporter=verbose");
  log.line(job, step, "##[endgroup]");
  log.line(job, step, "");
  log.line(
    job,
    step,
    `${ESC}[1m${ESC}[7m${ESC}[36m RUN ${ESC}[39m${ESC}[27m${ESC}[22m ${ESC}[36mv2.1.4 ${ESC}[39m${ESC}[90m/home/runner/work/storefront/storefront${ESC}[39m`,
  );
  for (let i = 0; i < 3000; i++) {
    const suite = SUITES[i % SUITES.length];
    log.line(
      job,
      step,
      ` ${green("✓")} test/${suite}.test.ts > ${suite} > ${pick(VERBS)} ${pick(NOUNS)} #${i} ${dim(`${ms()}ms`)}`,
    );
    if (i === 2200) {
      log.line(job, step, ` ${red("×")} test/retry.test.ts > backoff > gives up after three attempts ${dim("12ms")}`);
      log.line(job, step, `   ${red("→ expected 4 to be 3 // Object.is equality")}`);
    }
  }
  log.line(job, step, "");
  log.line(job, step, red("⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯"));
  log.line(job, step, "");
  log.line(job, step, `${boldRed(" FAIL ")} test/retry.test.ts > backoff > gives up after three attempts`);
  log.line(job, step, `${red("AssertionError")}: expected 4 to be 3 // Object.is equality`);
  log.line(job, step, "");
  log.line(job, step, `${green("- Expected")}`);
  log.line(job, step, `${red("+ Received")}`);
  log.line(job, step, "");
  log.line(job, step, `${green("- 3")}`);
  log.line(job, step, `${red("+ 4")}`);
  log.line(job, step, "");
  log.line(job, step, ` ❯ test/retry.test.ts:${ESC}[2m58:27${ESC}[22m`);
  log.line(job, step, "");
  log.line(job, step, ` Test Files  ${red("1 failed")} | ${green("10 passed")} (11)`);
  log.line(job, step, `      Tests  ${red("1 failed")} | ${green("3000 passed")} (3001)`);
  log.line(job, step, "##[error]Process completed with exit code 1.");
  writeFileSync(join(root, "logs", "7003.log"), log.text());
  run(7003, {
    title: "Add exponential backoff to webhook retries",
    workflow: "CI",
    conclusion: "failure",
    createdAt: "2026-11-04T14:28:51Z",
    branch: "feat/webhook-backoff",
    sha: "b17d2e9f0a3c5e7b9d1f3a5c7e9b1d3f5a7c9e0b",
    event: "pull_request",
    jobs: [
      ["typecheck", "success"],
      ["test", "failure", "Run npm test"],
    ],
  });
}

// ----------------------------------------- 7004 and 7010: pytest failure, the same signature twice
const PYMODS = [
  "test_catalog",
  "test_money",
  "test_orders_unit",
  "test_pagination",
  "test_serializers",
  "test_tokens",
  "test_users",
  "test_validation",
];
function pytestLog(start, passing, seedShift) {
  const job = "api-tests";
  const step = "Run pytest";
  const log = ghLog(start);
  setup(log, job);
  log.line(job, step, "##[group]Run python -m pytest -v --color=yes");
  log.line(job, step, "python -m pytest -v --color=yes");
  log.line(job, step, "##[endgroup]");
  log.line(
    job,
    step,
    `${ESC}[1m============================= test session starts ==============================${ESC}[0m`,
  );
  log.line(
    job,
    step,
    "platform linux -- Python 3.12.7, pytest-8.3.3, pluggy-1.5.0 -- /opt/hostedtoolcache/Python/3.12.7/x64/bin/python",
  );
  log.line(job, step, "rootdir: /home/runner/work/storefront-api/storefront-api");
  log.line(job, step, `collected ${passing + 1} items`);
  log.line(job, step, "");
  for (let i = 0; i < passing; i++) {
    const pct = String(Math.floor(((i + 1) * 100) / (passing + 1))).padStart(3, " ");
    log.line(
      job,
      step,
      `tests/unit/${PYMODS[(i + seedShift) % PYMODS.length]}.py::test_case_${i} ${green("PASSED")}${" ".repeat(8)}[${pct}%]`,
    );
    if (i === Math.floor(passing * 0.6))
      log.line(job, step, `tests/integration/test_orders.py::test_create_order_persists ${red("FAILED")}     [ 60%]`);
  }
  log.line(job, step, "");
  log.line(job, step, "=================================== FAILURES ===================================");
  log.line(
    job,
    step,
    `${ESC}[31m${ESC}[1m__________________________ test_create_order_persists __________________________${ESC}[0m`,
  );
  log.line(job, step, "");
  log.line(job, step, "    def test_create_order_persists(db):");
  log.line(job, step, '>       order = db.orders.create(customer_id="c-1", total_cents=1299)');
  log.line(job, step, "");
  log.line(job, step, "tests/integration/test_orders.py:18: ");
  log.line(job, step, "_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ ");
  log.line(job, step, "api/db.py:44: in create");
  log.line(job, step, "    conn = self.pool.connect()");
  log.line(job, step, `${red("E   ConnectionRefusedError: [Errno 111] Connection refused")}`);
  log.line(job, step, "");
  log.line(job, step, "api/db.py:12: ConnectionRefusedError");
  log.line(job, step, "=========================== short test summary info ============================");
  log.line(
    job,
    step,
    `${red("FAILED")} tests/integration/test_orders.py::test_create_order_persists - ConnectionRefusedError: [Errno 111] Connection refused`,
  );
  log.line(
    job,
    step,
    `${red(`========================= 1 failed, ${passing} passed in 41.27s =========================`)}`,
  );
  log.line(job, step, "##[error]Process completed with exit code 1.");
  return log.text();
}
writeFileSync(join(root, "logs", "7004.log"), pytestLog("2026-11-05T08:01:00Z", 2400, 0));
run(7004, {
  title: "Add order persistence endpoint",
  workflow: "API",
  conclusion: "failure",
  createdAt: "2026-11-05T07:59:30Z",
  branch: "main",
  sha: "0d4f6a8c2e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f",
  jobs: [["api-tests", "failure", "Run pytest"]],
});
writeFileSync(join(root, "logs", "7010.log"), pytestLog("2026-11-11T16:45:00Z", 2600, 3));
run(7010, {
  title: "Paginate order history",
  workflow: "API",
  conclusion: "failure",
  createdAt: "2026-11-11T16:43:12Z",
  branch: "main",
  sha: "6e8a0c2e4b6d8f0a2c4e6b8d0f2a4c6e8b0d2f4a",
  jobs: [["api-tests", "failure", "Run pytest"]],
});

// ---------------------------------------------------------------- 7005: go test failure
{
  const job = "go";
  const step = "Run go test ./...";
  const log = ghLog("2026-11-06T10:00:00Z");
  log.line(job, step, "##[group]Run go test ./...");
  log.line(job, step, "go test ./...");
  log.line(job, step, "##[endgroup]");
  for (const pkg of ["cmd/shipd", "internal/carrier", "internal/geo", "internal/labels", "internal/quote"])
    log.line(job, step, `ok  \tgithub.com/acme/shipping/${pkg}\t${(0.01 + rand()).toFixed(3)}s`);
  log.line(job, step, "--- FAIL: TestParseDuration (0.00s)");
  log.line(job, step, "    --- FAIL: TestParseDuration/90m (0.00s)");
  log.line(job, step, '        duration_test.go:42: ParseDuration("90m") = 1h0m0s, want 1h30m0s');
  log.line(job, step, "FAIL");
  log.line(job, step, "FAIL\tgithub.com/acme/shipping/internal/timeutil\t0.004s");
  log.line(job, step, "ok  \tgithub.com/acme/shipping/internal/zones\t0.019s");
  log.line(job, step, "FAIL");
  log.line(job, step, "##[error]Process completed with exit code 1.");
  writeFileSync(join(root, "logs", "7005.log"), log.text());
  run(7005, {
    title: "Accept minutes in delivery windows",
    workflow: "Go",
    conclusion: "failure",
    createdAt: "2026-11-06T09:58:02Z",
    branch: "feat/minute-windows",
    sha: "a2c4e6f8b0d2f4a6c8e0b2d4f6a8c0e2b4d6f8a0",
    event: "pull_request",
    jobs: [["go", "failure", "Run go test ./..."]],
  });
}

// ---------------------------------------------------------------- 7006: cargo build failure
{
  const job = "rust";
  const step = "Run cargo test --locked";
  const log = ghLog("2026-11-07T12:20:00Z");
  log.line(job, step, "##[group]Run cargo test --locked");
  log.line(job, step, "cargo test --locked");
  log.line(job, step, "##[endgroup]");
  for (const c of [
    "proc-macro2 v1.0.89",
    "unicode-ident v1.0.13",
    "quote v1.0.37",
    "syn v2.0.87",
    "serde v1.0.214",
    "serde_derive v1.0.214",
    "rust_decimal v1.36.0",
    "thiserror v1.0.66",
  ])
    log.line(job, step, `${ESC}[1m${ESC}[32m   Compiling${ESC}[0m ${c}`);
  log.line(job, step, `${ESC}[1m${ESC}[32m   Compiling${ESC}[0m ledger v0.4.2 (/home/runner/work/ledger/ledger)`);
  log.line(job, step, `${ESC}[1m${ESC}[31merror[E0308]${ESC}[0m${ESC}[1m: mismatched types${ESC}[0m`);
  log.line(job, step, "  --> src/money.rs:31:22");
  log.line(job, step, "   |");
  log.line(job, step, "31 |     let cents: i64 = amount.round_dp(2) * 100;");
  log.line(job, step, "   |                ---   ^^^^^^^^^^^^^^^^^^^^^^^^ expected `i64`, found `Decimal`");
  log.line(job, step, "   |                |");
  log.line(job, step, "   |                expected due to this");
  log.line(job, step, "");
  log.line(job, step, `For more information about this error, try \`rustc --explain E0308\`.`);
  log.line(
    job,
    step,
    `${ESC}[1m${ESC}[31merror${ESC}[0m${ESC}[1m:${ESC}[0m could not compile \`ledger\` (lib test) due to 1 previous error`,
  );
  log.line(job, step, "##[error]Process completed with exit code 101.");
  writeFileSync(join(root, "logs", "7006.log"), log.text());
  run(7006, {
    title: "Store ledger amounts as integer cents",
    workflow: "Rust",
    conclusion: "failure",
    createdAt: "2026-11-07T12:18:45Z",
    branch: "feat/integer-cents",
    sha: "c6e8a0b2d4f6a8c0e2b4d6f8a0c2e4b6d8f0a2c4",
    event: "pull_request",
    jobs: [["rust", "failure", "Run cargo test --locked"]],
  });
}

// -------------------------------------------------- 7007: Maven test failure after 1,500 download lines
{
  const job = "build";
  const step = "Build with Maven";
  const log = ghLog("2026-11-08T07:40:00Z");
  log.line(job, step, "##[group]Run mvn -B verify");
  log.line(job, step, "mvn -B verify");
  log.line(job, step, "##[endgroup]");
  log.line(job, step, "[INFO] Scanning for projects...");
  log.line(job, step, "[INFO] ------------------------< com.acme:billing >-------------------------");
  log.line(job, step, "[INFO] Building billing 2.14.0-SNAPSHOT");
  const ARTS = [
    "org/apache/maven/plugins/maven-surefire-plugin/3.5.2",
    "com/google/errorprone/error_prone_annotations/2.28.0",
    "org/junit/jupiter/junit-jupiter-api/5.11.3",
    "com/fasterxml/jackson/core/jackson-databind/2.18.1",
    "org/slf4j/slf4j-api/2.0.16",
    "io/micrometer/micrometer-core/1.14.1",
  ];
  for (let i = 0; i < 1500; i++) {
    const a = pick(ARTS);
    const name = a.split("/").slice(-2).join("-");
    const verb = i % 2 === 0 ? "Downloading" : "Downloaded";
    log.line(
      job,
      step,
      `[INFO] ${verb} from central: https://repo.maven.apache.org/maven2/${a}/${name}.${i % 3 === 0 ? "jar" : "pom"}${verb === "Downloaded" ? ` (${(1 + rand() * 90).toFixed(1)} kB at ${Math.floor(50 + rand() * 900)} kB/s)` : ""}`,
    );
  }
  log.line(job, step, "[INFO] -------------------------------------------------------");
  log.line(job, step, "[INFO]  T E S T S");
  log.line(job, step, "[INFO] -------------------------------------------------------");
  log.line(job, step, "[INFO] Running com.acme.billing.TaxTableTest");
  log.line(
    job,
    step,
    "[INFO] Tests run: 22, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.188 s -- in com.acme.billing.TaxTableTest",
  );
  log.line(job, step, "[INFO] Running com.acme.billing.InvoiceServiceTest");
  log.line(
    job,
    step,
    `[${red("ERROR")}] Tests run: 14, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.412 s <<< FAILURE! -- in com.acme.billing.InvoiceServiceTest`,
  );
  log.line(
    job,
    step,
    `[${red("ERROR")}] com.acme.billing.InvoiceServiceTest.roundsHalfEven -- Time elapsed: 0.012 s <<< FAILURE!`,
  );
  log.line(job, step, "org.opentest4j.AssertionFailedError: expected: <10.04> but was: <10.05>");
  log.line(job, step, "\tat com.acme.billing.InvoiceServiceTest.roundsHalfEven(InvoiceServiceTest.java:48)");
  log.line(job, step, "");
  log.line(job, step, "[INFO] ");
  log.line(job, step, "[INFO] Results:");
  log.line(job, step, "[INFO] ");
  log.line(job, step, `[${red("ERROR")}] Failures: `);
  log.line(job, step, `[${red("ERROR")}]   InvoiceServiceTest.roundsHalfEven:48 expected: <10.04> but was: <10.05>`);
  log.line(job, step, "[INFO] ");
  log.line(job, step, `[${red("ERROR")}] Tests run: 36, Failures: 1, Errors: 0, Skipped: 0`);
  log.line(job, step, "[INFO] ");
  log.line(job, step, "[INFO] ------------------------------------------------------------------------");
  log.line(job, step, `[INFO] ${red("BUILD FAILURE")}`);
  log.line(job, step, "[INFO] ------------------------------------------------------------------------");
  log.line(
    job,
    step,
    `[${red("ERROR")}] Failed to execute goal org.apache.maven.plugins:maven-surefire-plugin:3.5.2:test (default-test) on project billing: There are test failures.`,
  );
  log.line(job, step, `[${red("ERROR")}] -> [Help 1]`);
  log.line(job, step, "##[error]Process completed with exit code 1.");
  writeFileSync(join(root, "logs", "7007.log"), log.text());
  run(7007, {
    title: "Round invoice totals per line",
    workflow: "Billing",
    conclusion: "failure",
    createdAt: "2026-11-08T07:38:20Z",
    branch: "main",
    sha: "e0b2d4f6a8c0e2b4d6f8a0c2e4b6d8f0a2c4e6b8",
    jobs: [["build", "failure", "Build with Maven"]],
  });
}

// ---------------------------------------------------------------- 7008: docker build failure
{
  const job = "image";
  const step = "Build and push";
  const log = ghLog("2026-11-09T13:05:00Z");
  log.line(job, step, "##[group]Docker info");
  log.line(job, step, "  Server Version: 27.3.1");
  log.line(job, step, "##[endgroup]");
  log.line(job, step, "#1 [internal] load build definition from Dockerfile");
  log.line(job, step, "#1 transferring dockerfile: 612B done");
  log.line(job, step, "#1 DONE 0.0s");
  log.line(job, step, "#9 [deps 3/4] COPY package.json package-lock.json ./");
  log.line(job, step, "#9 DONE 0.1s");
  log.line(job, step, "#11 [deps 4/4] RUN npm ci");
  log.line(job, step, "#11 4.212 npm error code ERESOLVE");
  log.line(job, step, "#11 4.213 npm error ERESOLVE unable to resolve dependency tree");
  log.line(job, step, "#11 4.213 npm error");
  log.line(job, step, "#11 4.213 npm error While resolving: storefront@3.9.0");
  log.line(job, step, "#11 4.213 npm error Found: react@18.3.1");
  log.line(job, step, "#11 4.214 npm error Could not resolve dependency:");
  log.line(job, step, '#11 4.214 npm error peer react@"^19.0.0" from @tanstack/react-query@6.0.0');
  log.line(job, step, '#11 ERROR: process "/bin/sh -c npm ci" did not complete successfully: exit code: 1');
  log.line(job, step, "------");
  log.line(job, step, " > [deps 4/4] RUN npm ci:");
  log.line(job, step, "------");
  log.line(
    job,
    step,
    'ERROR: failed to solve: process "/bin/sh -c npm ci" did not complete successfully: exit code: 1',
  );
  log.line(
    job,
    step,
    '##[error]buildx failed with: ERROR: failed to solve: process "/bin/sh -c npm ci" did not complete successfully: exit code: 1',
  );
  writeFileSync(join(root, "logs", "7008.log"), log.text());
  run(7008, {
    title: "Bump @tanstack/react-query to v6",
    workflow: "Release image",
    conclusion: "failure",
    createdAt: "2026-11-09T13:03:33Z",
    branch: "deps/react-query-6",
    sha: "f4a6c8e0b2d4f6a8c0e2b4d6f8a0c2e4b6d8f0a2",
    event: "pull_request",
    jobs: [["image", "failure", "Build and push"]],
  });
}

// ---------------------------------------- 7009: the step prints only a generic exit line at the end
{
  const job = "migrations";
  const step = "Check migrations";
  const log = ghLog("2026-11-10T09:30:00Z");
  log.line(job, step, "##[group]Run ./scripts/check-migrations.sh");
  log.line(job, step, "./scripts/check-migrations.sh");
  log.line(job, step, "##[endgroup]");
  for (let i = 30; i <= 42; i++)
    log.line(
      job,
      step,
      `checking migrations/00${i}_${pick(["add_index", "orders_status", "users_email", "coupons", "carts"])}.sql ... ok`,
    );
  log.line(job, step, "migration 0042_add_index.sql has no down migration");
  log.line(job, step, "");
  log.line(job, step, "##[error]Process completed with exit code 1.");
  writeFileSync(join(root, "logs", "7009.log"), log.text());
  run(7009, {
    title: "Index orders by status",
    workflow: "DB",
    conclusion: "failure",
    createdAt: "2026-11-10T09:28:47Z",
    branch: "feat/orders-status-index",
    sha: "1a3c5e7b9d0f2a4c6e8b0d2f4a6c8e0b2d4f6a8c",
    event: "pull_request",
    jobs: [["migrations", "failure", "Check migrations"]],
  });
}

// ------------------------------------------------ 7011: Gradle/Kotlin on a Windows runner (CRLF)
{
  const job = "android";
  const step = "Run ./gradlew assembleDebug";
  const log = ghLog("2026-11-12T15:10:00Z");
  log.line(job, step, "##[group]Run ./gradlew assembleDebug");
  log.line(job, step, "./gradlew assembleDebug");
  log.line(job, step, "##[endgroup]");
  for (const t of [
    "preBuild",
    "preDebugBuild",
    "generateDebugBuildConfig",
    "processDebugResources",
    "kaptGenerateStubsDebugKotlin",
  ])
    log.line(job, step, `> Task :app:${t}`);
  log.line(job, step, "> Task :app:compileDebugKotlin FAILED");
  log.line(
    job,
    step,
    "e: file:///D:/a/storefront-android/app/src/main/kotlin/com/acme/cart/CartSync.kt:57:21 Unresolved reference 'retryPolicy'.",
  );
  log.line(job, step, "");
  log.line(job, step, "FAILURE: Build failed with an exception.");
  log.line(job, step, "");
  log.line(job, step, "* What went wrong:");
  log.line(job, step, "Execution failed for task ':app:compileDebugKotlin'.");
  log.line(
    job,
    step,
    "> A failure occurred while executing org.jetbrains.kotlin.compilerRunner.GradleCompilerRunnerWithWorkers$GradleKotlinCompilerWorkAction",
  );
  log.line(job, step, "   > Compilation error. See log for more details");
  log.line(job, step, "");
  log.line(job, step, "BUILD FAILED in 1m 12s");
  log.line(job, step, "##[error]Process completed with exit code 1.");
  writeFileSync(join(root, "logs", "7011.log"), log.text("\r\n"));
  run(7011, {
    title: "Sync cart with retry policy",
    workflow: "Android",
    conclusion: "failure",
    createdAt: "2026-11-12T15:08:30Z",
    branch: "feat/cart-sync",
    sha: "3c5e7a9b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c",
    event: "pull_request",
    jobs: [["android", "failure", "Run ./gradlew assembleDebug"]],
  });
}

run(7012, {
  title: "Accept minutes in delivery windows",
  workflow: "Go",
  conclusion: "success",
  createdAt: "2026-11-13T10:00:00Z",
  branch: "feat/minute-windows",
  sha: "5e7a9c1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a3c",
  event: "pull_request",
  jobs: [["go", "success"]],
});
run(7013, {
  title: "Nightly e2e",
  workflow: "E2E",
  conclusion: "cancelled",
  createdAt: "2026-11-14T02:00:00Z",
  branch: "main",
  sha: "7a9c1e3b5d7f9a1c3e5b7d9f1a3c5e7b9d1f3a5c",
  event: "schedule",
  jobs: [["e2e", "cancelled"]],
});

// ------------------------------------------- 7014: a plain (non-GitHub) jest log from another CI
{
  const lines = [];
  let t = Date.parse("2026-11-15T18:00:00Z");
  const say = (s) => {
    t += 211;
    lines.push(`${new Date(t).toISOString()} ${s}`);
  };
  say("Started by an SCM change");
  say("Running in /var/lib/ci/workspace/storefront-checkout");
  say("+ npx jest --ci");
  for (let i = 0; i < 40; i++) say(`PASS src/${pick(SUITES)}/${pick(["model", "service", "view"])}.test.js`);
  say("FAIL src/checkout/coupon.test.js");
  say("  ● Checkout › applies coupon before tax");
  say("");
  say("    expect(received).toBe(expected) // Object.is equality");
  say("");
  say("    Expected: 90");
  say("    Received: 99");
  say("");
  say("Test Suites: 1 failed, 40 passed, 41 total");
  say("Tests:       1 failed, 212 passed, 213 total");
  say("Build step 'Execute shell' marked build as failure");
  writeFileSync(join(root, "logs", "7014.log"), `${lines.join("\n")}\n`);
  run(7014, {
    title: "Apply coupons before tax",
    workflow: "checkout-ci",
    conclusion: "failure",
    createdAt: "2026-11-15T17:59:00Z",
    branch: "feat/coupon-order",
    sha: "9c1e3a5b7d9f1a3c5e7b9d1f3a5c7e9b1d3f5a7c",
    jobs: [["jest", "failure", "Execute shell"]],
  });
}

// ---------------------------------------------------------------- pull requests and diffs
/** A unified diff for one file; hunks are [oldStart, newStart, context header, lines with ' ', '+', '-']. */
function fileDiff(path, hunks, { newFile = false } = {}) {
  const out = [`diff --git a/${path} b/${path}`];
  if (newFile) out.push("new file mode 100644");
  out.push(
    `index ${(path.length * 7919).toString(16).padStart(7, "0").slice(0, 7)}..${(path.length * 104729).toString(16).padStart(7, "0").slice(0, 7)} 100644`,
  );
  out.push(newFile ? "--- /dev/null" : `--- a/${path}`, `+++ b/${path}`);
  for (const [oldStart, newStart, ctx, lines] of hunks) {
    const oldN = lines.filter((l) => l[0] !== "+").length;
    const newN = lines.filter((l) => l[0] !== "-").length;
    out.push(`@@ -${oldN === 0 ? 0 : oldStart},${oldN} +${newStart},${newN} @@${ctx ? ` ${ctx}` : ""}`, ...lines);
  }
  return out.join("\n");
}

function pr(n, o, diffs) {
  const files = diffs.map((d) => {
    const lines = d.split("\n");
    return {
      path: /^diff --git a\/\S+ b\/(\S+)/.exec(lines[0])[1],
      additions: lines.filter((l) => l.startsWith("+") && !l.startsWith("+++")).length,
      deletions: lines.filter((l) => l.startsWith("-") && !l.startsWith("---")).length,
    };
  });
  const doc = {
    author: { login: o.author },
    baseRefName: "main",
    body: o.body,
    files,
    headRefName: o.branch,
    mergedAt: o.mergedAt ?? null,
    number: n,
    state: o.mergedAt ? "MERGED" : "OPEN",
    title: o.title,
    url: `${REPO}/pull/${n}`,
  };
  writeFileSync(join(root, "prs", `${n}.json`), `${JSON.stringify(doc, null, 2)}\n`);
  writeFileSync(join(root, "prs", `${n}.diff`), `${diffs.join("\n")}\n`);
}

pr(
  41,
  {
    title: "Add exponential backoff to webhook retries",
    author: "mkowalski",
    branch: "feat/webhook-backoff",
    mergedAt: "2026-11-05T10:12:00Z",
    body: "Webhook deliveries now back off exponentially (base 200 ms, factor 2) and give up after three attempts.\n\nThe first CI run counted the initial delivery as an attempt; fixed in the second commit.",
  },
  [
    fileDiff("src/webhooks/retry.ts", [
      [
        12,
        12,
        "export async function deliver(hook: Hook, payload: Payload) {",
        [
          "   let attempt = 0;",
          "-  while (attempt < MAX_ATTEMPTS) {",
          "+  while (attempt <= MAX_ATTEMPTS) {",
          "     try {",
          "       return await send(hook, payload);",
          "     } catch (err) {",
          "-      await sleep(RETRY_DELAY_MS);",
          "+      await sleep(BASE_DELAY_MS * 2 ** attempt);",
          "       attempt++;",
        ],
      ],
    ]),
    fileDiff("test/retry.test.ts", [
      [
        50,
        50,
        'describe("backoff", () => {',
        [
          '   it("gives up after three attempts", async () => {',
          '     const send = vi.fn().mockRejectedValue(new Error("503"));',
          '     await expect(deliver(hook, payload)).rejects.toThrow("503");',
          "-    expect(send).toHaveBeenCalledTimes(4);",
          "+    expect(send).toHaveBeenCalledTimes(3);",
          "   });",
        ],
      ],
    ]),
  ],
);

pr(
  42,
  {
    title: "Fix cart total type after currency refactor",
    author: "adeyemi",
    branch: "fix/cart-total-money",
    mergedAt: "2026-11-03T10:55:00Z",
    body: "Fixes WEB-19.\n\n`total()` returned a formatted string where callers expect `Money`; format at the edge instead.",
  },
  [
    fileDiff("src/cart/total.ts", [
      [
        24,
        24,
        "export function total(cart: Cart): Money {",
        [
          "   const sum = cart.items.reduce((acc, i) => acc.add(i.price.times(i.qty)), Money.zero(cart.currency));",
          "-  const display = sum.format(cart.locale);",
          "-  return display;",
          "+  return sum;",
          " }",
        ],
      ],
      [
        39,
        38,
        "export function convert(m: Money, rate: number): Money {",
        [
          "-  return new Money(m.cents * rate, rate);",
          "+  return new Money(Math.round(m.cents * rate), m.currency);",
          " }",
        ],
      ],
    ]),
    fileDiff("src/cart/view.tsx", [
      [
        8,
        8,
        "export function CartTotal({ cart }: Props) {",
        ["-  return <span>{total(cart)}</span>;", "+  return <span>{total(cart).format(cart.locale)}</span>;", " }"],
      ],
    ]),
  ],
);

pr(
  43,
  {
    title: "Convert Decimal amounts to cents explicitly",
    author: "lindqvist",
    branch: "fix/ledger-cents",
    mergedAt: "2026-11-07T15:02:00Z",
    body: "`round_dp` returns a `Decimal`; convert with `to_i64` and fail loudly on overflow instead of relying on an implicit cast.",
  },
  [
    fileDiff("src/money.rs", [
      [
        28,
        28,
        "pub fn to_cents(amount: Decimal) -> Result<i64, MoneyError> {",
        [
          "-    let cents: i64 = amount.round_dp(2) * 100;",
          "-    Ok(cents)",
          "+    let scaled = amount.round_dp(2) * Decimal::ONE_HUNDRED;",
          "+    scaled.to_i64().ok_or(MoneyError::Overflow(amount))",
          " }",
        ],
      ],
    ]),
    fileDiff("src/error.rs", [
      [
        5,
        5,
        "pub enum MoneyError {",
        [
          '     #[error("negative amount: {0}")]',
          "     Negative(Decimal),",
          '+    #[error("amount out of range: {0}")]',
          "+    Overflow(Decimal),",
          " }",
        ],
      ],
    ]),
  ],
);

pr(
  44,
  {
    title: "Round invoice totals half-even",
    author: "okafor",
    branch: "fix/half-even",
    mergedAt: "2026-11-08T12:40:00Z",
    body: "Resolves BILL-7: invoice totals must use banker's rounding (HALF_EVEN) as the tax authority requires.",
  },
  [
    fileDiff("src/main/java/com/acme/billing/InvoiceService.java", [
      [
        61,
        61,
        "BigDecimal lineTotal(Line line) {",
        [
          "-        return line.net().setScale(2, RoundingMode.HALF_UP);",
          "+        return line.net().setScale(2, RoundingMode.HALF_EVEN);",
          "     }",
        ],
      ],
    ]),
  ],
);

pr(
  45,
  {
    title: "Add down migration for 0042_add_index",
    author: "mkowalski",
    branch: "fix/down-migration-0042",
    mergedAt: "2026-11-10T11:20:00Z",
    body: "Closes OPS-31. Every migration needs a down script for rollbacks; this adds the missing one.",
  },
  [
    fileDiff("migrations/0042_add_index.down.sql", [[0, 1, "", ["+DROP INDEX IF EXISTS orders_status_idx;"]]], {
      newFile: true,
    }),
  ],
);

pr(
  46,
  {
    title: "Hold @tanstack/react-query at v5 until React 19",
    author: "renovate-bot",
    branch: "deps/hold-react-query",
    mergedAt: null,
    body: "v6 needs react@^19 as a peer; we are on 18.3. Reverting the bump keeps `npm ci` in the image build working.",
  },
  [
    fileDiff("package.json", [
      [
        31,
        31,
        '"dependencies": {',
        [
          '     "@stripe/stripe-js": "^4.9.0",',
          '-    "@tanstack/react-query": "^6.0.0",',
          '+    "@tanstack/react-query": "^5.59.0",',
          '     "react": "^18.3.1",',
        ],
      ],
    ]),
  ],
);

pr(
  47,
  {
    title: "Wait for the postgres service before integration tests",
    author: "adeyemi",
    branch: "fix/wait-for-postgres",
    mergedAt: "2026-11-12T09:15:00Z",
    body: "Fixes PLAT-88.\n\nThe postgres service container was not ready when pytest started. Add a health check to the service and a `pg_isready` wait step.",
  },
  [
    fileDiff(".github/workflows/api.yml", [
      [
        14,
        14,
        "services:",
        [
          "       postgres:",
          "         image: postgres:16",
          "+        options: >-",
          "+          --health-cmd pg_isready",
          "+          --health-interval 2s",
          "+          --health-retries 15",
        ],
      ],
      [
        30,
        34,
        "steps:",
        [
          "       - uses: actions/checkout@v4",
          "+      - name: Wait for postgres",
          "+        run: until pg_isready -h localhost -p 5432; do sleep 1; done",
          "       - name: Run pytest",
        ],
      ],
    ]),
  ],
);

pr(
  48,
  {
    title: "Parse minutes in ParseDuration",
    author: "lindqvist",
    branch: "fix/parse-minutes",
    mergedAt: "2026-11-06T14:00:00Z",
    body: "`90m` was parsed as hours because the unit switch fell through. Adds a table test.",
  },
  [
    fileDiff("internal/timeutil/duration.go", [
      [
        20,
        20,
        "func ParseDuration(s string) (time.Duration, error) {",
        [
          "\tswitch unit {",
          "\tcase 'h':",
          "\t\treturn time.Duration(n) * time.Hour, nil",
          "+\tcase 'm':",
          "+\t\treturn time.Duration(n) * time.Minute, nil",
          "\t}",
        ].map((l) => (l.startsWith("+") ? l : ` ${l}`)),
      ],
    ]),
  ],
);

// ---------------------------------------------------------------- tickets
const ticket = (id, title, status, body) =>
  writeFileSync(
    join(root, "tickets", `${id}.json`),
    `${JSON.stringify({ id, title, body, status, url: `https://tracker.acme.example/browse/${id}` }, null, 2)}\n`,
  );

ticket(
  "WEB-19",
  "Typecheck fails on cart totals after the Money refactor",
  "done",
  "CI run 7001 fails in typecheck:\n\n    src/cart/total.ts(27,9): error TS2322: Type 'string' is not assignable to type 'Money'.\n\n`total()` still formats to a string.",
);
ticket(
  "PLAT-88",
  "Integration tests cannot reach postgres in CI",
  "done",
  "The API integration suite fails intermittently before any query runs:\n\n    E   ConnectionRefusedError: [Errno 111] Connection refused\n\nThe service container starts after pytest. Seen in runs 7004 and 7010.",
);
ticket(
  "BILL-7",
  "Invoice totals must use banker's rounding",
  "done",
  "Finance reports a one-cent difference on invoices with .005 line totals. The tax authority requires HALF_EVEN rounding.",
);
ticket(
  "OPS-31",
  "Migrations without down scripts block rollbacks",
  "open",
  "The migration check fails with:\n\n    migration 0042_add_index.sql has no down migration\n\nAdd the down script.",
);
ticket(
  "OPS-40",
  "Flaky nightly e2e on Safari",
  "open",
  "Nightly e2e times out on Safari roughly once a week. No log attached yet.",
);

// ---------------------------------------------------------------- a commit, as `tessera ingest git` writes it
{
  const sha = "d3a9f1c27b4e8a6f0c5d2e9b7a1f4c8e6b0d3a5f";
  writeFileSync(
    join(root, "commits", `${sha}.json`),
    `${JSON.stringify({ sha, subject: "Retry Safari e2e navigation once", body: "Refs OPS-40: the nightly Safari run times out on the first navigation after a cold start.", author: "Maja Lindqvist <lindqvist@acme.example>", date: "2026-11-14T09:30:00+01:00" }, null, 2)}\n`,
  );
  writeFileSync(
    join(root, "commits", `${sha}.diff`),
    `${fileDiff("e2e/playwright.config.ts", [
      [
        9,
        9,
        "export default defineConfig({",
        ["   timeout: 60_000,", "-  retries: 0,", "+  retries: process.env.CI ? 1 : 0,", "   use: {"],
      ],
    ])}\n`,
  );
}

// ================================================================ more ecosystems and CI systems
// Written after everything else so the fixed-seed generator gives the earlier files unchanged; the
// runs below use no randomness.

/** A plain log from a CI system other than GitHub Actions: one line per entry, no prefix. */
function plainLog(id, lines) {
  writeFileSync(join(root, "logs", `${id}.log`), `${lines.join("\n")}\n`);
}

// ---------------------------------------------------------------- 7015: go test -race, a data race
{
  const job = "go-race";
  const step = "Run go test -race ./...";
  const log = ghLog("2026-11-16T09:00:00Z");
  log.line(job, step, "##[group]Run go test -race ./...");
  log.line(job, step, "go test -race ./...");
  log.line(job, step, "##[endgroup]");
  log.line(job, step, "ok  \tgithub.com/acme/shipping/cmd/shipd\t1.044s");
  log.line(job, step, "ok  \tgithub.com/acme/shipping/internal/carrier\t1.310s");
  log.line(job, step, "==================");
  log.line(job, step, "WARNING: DATA RACE");
  log.line(job, step, "Write at 0x00c0001a4010 by goroutine 23:");
  log.line(job, step, "  runtime.mapassign_faststr()");
  log.line(job, step, "      /opt/hostedtoolcache/go/1.23.3/x64/src/runtime/map_faststr.go:223 +0x0");
  log.line(job, step, "  github.com/acme/shipping/internal/quote.(*Cache).Put()");
  log.line(job, step, "      /home/runner/work/shipping/shipping/internal/quote/cache.go:41 +0x8c");
  log.line(job, step, "");
  log.line(job, step, "Previous read at 0x00c0001a4010 by goroutine 22:");
  log.line(job, step, "  github.com/acme/shipping/internal/quote.(*Cache).Get()");
  log.line(job, step, "      /home/runner/work/shipping/shipping/internal/quote/cache.go:29 +0x64");
  log.line(job, step, "");
  log.line(job, step, "Goroutine 23 (running) created at:");
  log.line(job, step, "  github.com/acme/shipping/internal/quote.TestCacheConcurrentPut()");
  log.line(job, step, "      /home/runner/work/shipping/shipping/internal/quote/cache_test.go:18 +0x1b0");
  log.line(job, step, "==================");
  log.line(job, step, "--- FAIL: TestCacheConcurrentPut (0.01s)");
  log.line(job, step, "    testing.go:1465: race detected during execution of test");
  log.line(job, step, "FAIL");
  log.line(job, step, "FAIL\tgithub.com/acme/shipping/internal/quote\t0.215s");
  log.line(job, step, "FAIL");
  log.line(job, step, "##[error]Process completed with exit code 1.");
  writeFileSync(join(root, "logs", "7015.log"), log.text());
  run(7015, {
    title: "Cache carrier quotes in memory",
    workflow: "Go",
    conclusion: "failure",
    createdAt: "2026-11-16T08:58:40Z",
    branch: "feat/quote-cache",
    sha: "1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a3c5e7b9d",
    event: "pull_request",
    jobs: [["go-race", "failure", "Run go test -race ./..."]],
  });
}

// ---------------------------------------------------------------- 7016: pytest assertion failure
{
  const job = "unit";
  const step = "Run pytest -q";
  const log = ghLog("2026-11-16T11:00:00Z");
  log.line(job, step, "##[group]Run pytest -q");
  log.line(job, step, "pytest -q");
  log.line(job, step, "##[endgroup]");
  log.line(job, step, `....................................................${red("F")}.................... [ 64%]`);
  log.line(job, step, "........................................                                   [100%]");
  log.line(job, step, "=================================== FAILURES ===================================");
  log.line(job, step, "_____________________________ test_vat_rounds_down _____________________________");
  log.line(job, step, "");
  log.line(job, step, "    def test_vat_rounds_down():");
  log.line(job, step, "        invoice = Invoice(lines=[Line(net=Decimal('9.995'))])");
  log.line(job, step, ">       assert invoice.vat() == Decimal('1.90')");
  log.line(job, step, `${red("E       AssertionError: assert Decimal('1.91') == Decimal('1.90')")}`);
  log.line(job, step, `${red("E        +  where Decimal('1.91') = <bound method Invoice.vat of Invoice(lines=1)>()")}`);
  log.line(job, step, "");
  log.line(job, step, "tests/test_vat.py:27: AssertionError");
  log.line(job, step, "=========================== short test summary info ============================");
  log.line(
    job,
    step,
    `${red("FAILED")} tests/test_vat.py::test_vat_rounds_down - AssertionError: assert Decimal('1.91') == Decimal('1.90')`,
  );
  log.line(job, step, `${red("1 failed")}, ${green("111 passed")} in 2.08s`);
  log.line(job, step, "##[error]Process completed with exit code 1.");
  writeFileSync(join(root, "logs", "7016.log"), log.text());
  run(7016, {
    title: "Compute VAT per invoice line",
    workflow: "API",
    conclusion: "failure",
    createdAt: "2026-11-16T10:58:10Z",
    branch: "feat/vat-per-line",
    sha: "2c4e6a8b0d2f4a6c8e0b2d4f6a8c0e2b4d6f8a0c",
    event: "pull_request",
    jobs: [["unit", "failure", "Run pytest -q"]],
  });
}

// ------------------------------------------------------ 7017: Maven compilation error (javac)
{
  const job = "build";
  const step = "Build with Maven";
  const log = ghLog("2026-11-17T07:30:00Z");
  log.line(job, step, "##[group]Run mvn -B -ntp verify");
  log.line(job, step, "mvn -B -ntp verify");
  log.line(job, step, "##[endgroup]");
  log.line(job, step, "[INFO] Scanning for projects...");
  log.line(job, step, "[INFO] Building billing 2.15.0-SNAPSHOT");
  log.line(job, step, "[INFO] --- compiler:3.13.0:compile (default-compile) @ billing ---");
  log.line(job, step, "[INFO] Compiling 84 source files with javac [debug target 21] to target/classes");
  log.line(job, step, `[${red("ERROR")}] COMPILATION ERROR : `);
  log.line(job, step, "[INFO] -------------------------------------------------------------");
  log.line(
    job,
    step,
    `[${red("ERROR")}] /home/runner/work/billing/billing/src/main/java/com/acme/billing/CreditNote.java:[12,5] cannot find symbol`,
  );
  log.line(job, step, "  symbol:   class Money");
  log.line(job, step, "  location: class com.acme.billing.CreditNote");
  log.line(job, step, "[INFO] 1 error");
  log.line(job, step, "[INFO] -------------------------------------------------------------");
  log.line(job, step, "[INFO] ------------------------------------------------------------------------");
  log.line(job, step, `[INFO] ${red("BUILD FAILURE")}`);
  log.line(job, step, "[INFO] ------------------------------------------------------------------------");
  log.line(
    job,
    step,
    `[${red("ERROR")}] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.13.0:compile (default-compile) on project billing: Compilation failure`,
  );
  log.line(
    job,
    step,
    `[${red("ERROR")}] /home/runner/work/billing/billing/src/main/java/com/acme/billing/CreditNote.java:[12,5] cannot find symbol`,
  );
  log.line(job, step, `[${red("ERROR")}]   symbol:   class Money`);
  log.line(job, step, `[${red("ERROR")}]   location: class com.acme.billing.CreditNote`);
  log.line(job, step, `[${red("ERROR")}] -> [Help 1]`);
  log.line(job, step, "##[error]Process completed with exit code 1.");
  writeFileSync(join(root, "logs", "7017.log"), log.text());
  run(7017, {
    title: "Add credit notes",
    workflow: "Billing",
    conclusion: "failure",
    createdAt: "2026-11-17T07:28:30Z",
    branch: "feat/credit-notes",
    sha: "3d5f7b9c1e3a5c7e9b1d3f5a7c9e1b3d5f7a9c1e",
    event: "pull_request",
    jobs: [["build", "failure", "Build with Maven"]],
  });
}

// ------------------------------------------------------ 7018: GitLab CI job log (npm lint failure)
{
  const CR = "\r";
  const clear = `${ESC}[0K`;
  plainLog(7018, [
    `${ESC}[0KRunning with gitlab-runner 17.5.3 (12030cf4)${ESC}[0;m`,
    `${ESC}[0K  on shared-runner-3 t3_xk2Lq, system ID: s_8a1b2c3d4e5f${ESC}[0;m`,
    `section_start:1763370000:prepare_executor${CR}${clear}${ESC}[0K${ESC}[36;1mPreparing the "docker" executor${ESC}[0;m`,
    `${ESC}[0KUsing docker image sha256:4f1c for node:22-bookworm ...${ESC}[0;m`,
    `section_end:1763370004:prepare_executor${CR}${clear}`,
    `section_start:1763370004:get_sources${CR}${clear}${ESC}[0K${ESC}[36;1mGetting source from Git repository${ESC}[0;m`,
    `${ESC}[32;1mFetching changes with git depth set to 20...${ESC}[0;m`,
    "Checking out 5e7a9c1b as detached HEAD (ref is feat/search-facets)...",
    `section_end:1763370009:get_sources${CR}${clear}`,
    `section_start:1763370009:step_script${CR}${clear}${ESC}[0K${ESC}[36;1mExecuting "step_script" stage of the job script${ESC}[0;m`,
    `${ESC}[32;1m$ npm ci${ESC}[0;m`,
    "added 812 packages, and audited 813 packages in 14s",
    `${ESC}[32;1m$ npm run lint${ESC}[0;m`,
    "",
    "> storefront@3.9.1 lint",
    "> eslint --max-warnings 0 src",
    "",
    "/builds/acme/storefront/src/search/facets.ts",
    `  18:7  ${red("error")}  'unusedFacet' is assigned a value but never used  @typescript-eslint/no-unused-vars`,
    "",
    `${red("✖ 1 problem (1 error, 0 warnings)")}`,
    "",
    `section_end:1763370031:step_script${CR}${clear}`,
    `section_start:1763370031:cleanup_file_variables${CR}${clear}${ESC}[0K${ESC}[36;1mCleaning up project directory and file based variables${ESC}[0;m`,
    `section_end:1763370032:cleanup_file_variables${CR}${clear}`,
    `${ESC}[31;1mERROR: Job failed: exit code 1${ESC}[0;m`,
  ]);
  run(7018, {
    title: "Add search facets",
    workflow: "gitlab-ci",
    conclusion: "failure",
    createdAt: "2026-11-17T09:00:00Z",
    branch: "feat/search-facets",
    sha: "5e7a9c1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a3d",
    jobs: [["lint", "failure", "step_script"]],
  });
}

// ------------------------------------------------------ 7019: Travis CI (bundle exec rspec)
plainLog(7019, [
  "travis_fold:start:worker_info",
  `${ESC}[0K${ESC}[33;1mWorker information${ESC}[0m`,
  "hostname: 6f1e2d3c-worker-org-5",
  "travis_fold:end:worker_info",
  `${ESC}[0Ktravis_time:start:0a1b2c3d`,
  `${ESC}[0K$ bundle exec rspec`,
  "Randomized with seed 41872",
  `.............................................${red("F")}..........`,
  "",
  "Failures:",
  "",
  "  1) Cart#checkout charges the discounted total",
  "     Failure/Error: expect(order.charged_cents).to eq(900)",
  "",
  "       expected: 900",
  "            got: 1000",
  "",
  "       (compared using ==)",
  "     # ./spec/models/cart_spec.rb:42:in `block (3 levels) in <top (required)>'",
  "",
  "Finished in 3.41 seconds (files took 1.2 seconds to load)",
  "56 examples, 1 failure",
  "",
  "Failed examples:",
  "",
  `${red("rspec ./spec/models/cart_spec.rb:38")} ${ESC}[36m# Cart#checkout charges the discounted total${ESC}[0m`,
  "",
  `travis_time:end:0a1b2c3d:start=1763380000,finish=1763380006,duration=6.12${ESC}[0K`,
  `${ESC}[31;1mThe command "bundle exec rspec" exited with 1.${ESC}[0m`,
  "",
  "Done. Your build exited with 1.",
]);
run(7019, {
  title: "Charge the discounted total",
  workflow: "travis-ci",
  conclusion: "failure",
  createdAt: "2026-11-17T11:00:00Z",
  branch: "fix/discount-charge",
  sha: "6f8a0c2e4b6d8f0a2c4e6b8d0f2a4c6e8b0d2f4b",
  jobs: [["rspec", "failure", "script"]],
});

// ------------------------------------------------------ 7020: Jenkins pipeline (gradle test)
plainLog(7020, [
  "Started by user Maja Lindqvist",
  "[Pipeline] Start of Pipeline",
  "[Pipeline] node",
  "Running on agent-linux-04 in /var/jenkins/workspace/inventory-service",
  "[Pipeline] {",
  "[Pipeline] stage",
  "[Pipeline] { (Test)",
  "[Pipeline] sh",
  "+ ./gradlew test --no-daemon",
  "> Task :compileJava",
  "> Task :compileTestJava",
  "> Task :test",
  "",
  "StockLevelTest > reservesOnlyAvailableUnits() FAILED",
  "    java.lang.IllegalStateException: reserved 12 units but only 10 in stock",
  "        at com.acme.inventory.StockLevel.reserve(StockLevel.java:57)",
  "        at com.acme.inventory.StockLevelTest.reservesOnlyAvailableUnits(StockLevelTest.java:33)",
  "",
  "48 tests completed, 1 failed",
  "",
  "> Task :test FAILED",
  "",
  "FAILURE: Build failed with an exception.",
  "",
  "* What went wrong:",
  "Execution failed for task ':test'.",
  "> There were failing tests. See the report at: file:///var/jenkins/workspace/inventory-service/build/reports/tests/test/index.html",
  "",
  "BUILD FAILED in 38s",
  "[Pipeline] }",
  "[Pipeline] // stage",
  "[Pipeline] }",
  "[Pipeline] // node",
  "[Pipeline] End of Pipeline",
  "ERROR: script returned exit code 1",
  "Finished: FAILURE",
]);
run(7020, {
  title: "Reserve stock atomically",
  workflow: "inventory-pipeline",
  conclusion: "failure",
  createdAt: "2026-11-18T08:00:00Z",
  branch: "feat/atomic-reserve",
  sha: "7a9c1e3b5d7f9a1c3e5b7d9f1a3c5e7b9d1f3a5d",
  jobs: [["Test", "failure", "sh"]],
});

// ------------------------------------------------------ 7021: CMake/gcc compile error
{
  const job = "native";
  const step = "Build";
  const log = ghLog("2026-11-18T10:00:00Z");
  log.line(job, step, "##[group]Run cmake --build build --parallel");
  log.line(job, step, "cmake --build build --parallel");
  log.line(job, step, "##[endgroup]");
  log.line(job, step, "[ 12%] Building CXX object src/CMakeFiles/geo.dir/haversine.cpp.o");
  log.line(job, step, "[ 25%] Building CXX object src/CMakeFiles/geo.dir/polygon.cpp.o");
  log.line(
    job,
    step,
    "/home/runner/work/geo/geo/src/polygon.cpp: In member function 'double geo::Polygon::area() const':",
  );
  log.line(
    job,
    step,
    `/home/runner/work/geo/geo/src/polygon.cpp:48:17: ${red("error:")} 'accumulate' is not a member of 'std'`,
  );
  log.line(job, step, "   48 |     return std::accumulate(edges_.begin(), edges_.end(), 0.0, shoelace);");
  log.line(job, step, "      |                 ^~~~~~~~~~");
  log.line(
    job,
    step,
    "/home/runner/work/geo/geo/src/polygon.cpp:3:1: note: 'std::accumulate' is defined in header '<numeric>'; this is probably fixable by adding '#include <numeric>'",
  );
  log.line(
    job,
    step,
    "gmake[2]: *** [src/CMakeFiles/geo.dir/build.make:90: src/CMakeFiles/geo.dir/polygon.cpp.o] Error 1",
  );
  log.line(job, step, "gmake[1]: *** [CMakeFiles/Makefile2:112: src/CMakeFiles/geo.dir/all] Error 2");
  log.line(job, step, "gmake: *** [Makefile:136: all] Error 2");
  log.line(job, step, "##[error]Process completed with exit code 2.");
  writeFileSync(join(root, "logs", "7021.log"), log.text());
  run(7021, {
    title: "Compute polygon areas with the shoelace formula",
    workflow: "Native",
    conclusion: "failure",
    createdAt: "2026-11-18T09:58:20Z",
    branch: "feat/polygon-area",
    sha: "8b0d2f4a6c8e0b2d4f6a8c0e2b4d6f8a0c2e4b6e",
    event: "pull_request",
    jobs: [["native", "failure", "Build"]],
  });
}

// ------------------------------------------------------ 7022: the runner kills the test process (OOM)
{
  const job = "test";
  const step = "Run npm test";
  const log = ghLog("2026-11-19T13:00:00Z");
  log.line(job, step, "##[group]Run npm test");
  log.line(job, step, "npm test");
  log.line(job, step, "##[endgroup]");
  log.line(job, step, "");
  log.line(job, step, "> storefront@3.9.1 test");
  log.line(job, step, "> jest --ci --maxWorkers=4");
  log.line(job, step, "");
  log.line(job, step, "PASS src/cart/model.test.js");
  log.line(job, step, "PASS src/search/index.test.js");
  log.line(job, step, "PASS src/pricing/rules.test.js");
  log.line(job, step, "/home/runner/work/_temp/3f2a9c1e.sh: line 1:  2417 Killed                  npm test");
  log.line(job, step, "##[error]Process completed with exit code 137.");
  writeFileSync(join(root, "logs", "7022.log"), log.text());
  run(7022, {
    title: "Index the full catalogue in tests",
    workflow: "CI",
    conclusion: "failure",
    createdAt: "2026-11-19T12:58:40Z",
    branch: "feat/full-catalogue-index",
    sha: "9c1e3a5b7d9f1a3c5e7b9d1f3a5c7e9b1d3f5a7d",
    event: "pull_request",
    jobs: [["test", "failure", "Run npm test"]],
  });
}

// ------------------------------------------------------ 7023: docker buildx, a network failure
{
  const job = "image";
  const step = "Build and push";
  const log = ghLog("2026-11-19T15:00:00Z");
  log.line(job, step, "##[group]Run docker/build-push-action@v6");
  log.line(job, step, "with:");
  log.line(job, step, "  push: true");
  log.line(job, step, "  tags: ghcr.io/acme/storefront:pr-52");
  log.line(job, step, "##[endgroup]");
  log.line(job, step, '#0 building with "builder-4c1d" instance using docker-container driver');
  log.line(job, step, "");
  log.line(job, step, "#1 [internal] load build definition from Dockerfile");
  log.line(job, step, "#1 transferring dockerfile: 612B done");
  log.line(job, step, "#1 DONE 0.0s");
  log.line(job, step, "");
  log.line(job, step, "#2 [internal] load metadata for docker.io/library/node:22-bookworm-slim");
  log.line(
    job,
    step,
    '#2 ERROR: failed to do request: Head "https://registry-1.docker.io/v2/library/node/manifests/22-bookworm-slim": dial tcp 54.236.113.205:443: i/o timeout',
  );
  log.line(job, step, "------");
  log.line(job, step, " > [internal] load metadata for docker.io/library/node:22-bookworm-slim:");
  log.line(job, step, "------");
  log.line(job, step, "Dockerfile:1");
  log.line(job, step, "--------------------");
  log.line(job, step, "   1 | >>> FROM node:22-bookworm-slim AS deps");
  log.line(job, step, "--------------------");
  log.line(
    job,
    step,
    'ERROR: failed to solve: node:22-bookworm-slim: failed to resolve source metadata for docker.io/library/node:22-bookworm-slim: failed to do request: Head "https://registry-1.docker.io/v2/library/node/manifests/22-bookworm-slim": dial tcp 54.236.113.205:443: i/o timeout',
  );
  log.line(
    job,
    step,
    '##[error]buildx failed with: ERROR: failed to solve: node:22-bookworm-slim: failed to resolve source metadata for docker.io/library/node:22-bookworm-slim: failed to do request: Head "https://registry-1.docker.io/v2/library/node/manifests/22-bookworm-slim": dial tcp 54.236.113.205:443: i/o timeout',
  );
  writeFileSync(join(root, "logs", "7023.log"), log.text());
  run(7023, {
    title: "Slim the runtime image",
    workflow: "Release image",
    conclusion: "failure",
    createdAt: "2026-11-19T14:58:30Z",
    branch: "feat/slim-image",
    sha: "0d2f4a6c8e0b2d4f6a8c0e2b4d6f8a0c2e4b6d8f",
    event: "pull_request",
    jobs: [["image", "failure", "Build and push"]],
  });
}
