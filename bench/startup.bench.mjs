// bench/startup: how long `tessera check` and `tessera hook claude-code` take as processes, against
// a bare `node -e 0` (the limit), run in alternation so load on the machine hits all alike. The
// policy cache is warm (one run before measuring), as it is for a hook that runs before every call.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { figure, median, printResult } from "./lib.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const cli = join(root, "dist", "cli", "main.js");
const policy = join(root, "examples", "refunds", "policy.yaml");
const context = join(root, "examples", "refunds", "context.json");
const cache = mkdtempSync(join(tmpdir(), "tessera-bench-startup-"));
const env = { ...process.env, XDG_CACHE_HOME: cache };
const hookInput = JSON.stringify({
  hook_event_name: "PreToolUse",
  tool_name: "refund_order",
  tool_input: { order_id: 1001, amount_cents: 4999 },
});

const runs = {
  node: () => spawnSync(process.execPath, ["-e", "0"], { env }),
  // the floor a SQLite-backed check cannot go under: node with better-sqlite3 loaded and the database opened
  sqlite: () =>
    spawnSync(
      process.execPath,
      [
        "-e",
        `new (require("better-sqlite3"))(${JSON.stringify(join(root, "examples", "refunds", "billing.db"))}, { readonly: true })`,
      ],
      { env, cwd: root },
    ),
  check: () =>
    spawnSync(
      process.execPath,
      [
        cli,
        "check",
        "--policy",
        policy,
        "--call",
        join(root, "examples", "refunds", "calls", "refund-own-order.json"),
        "--context",
        context,
      ],
      { env },
    ),
  hook: () =>
    spawnSync(process.execPath, [cli, "hook", "claude-code", "--policy", policy, "--context", context], {
      env,
      input: hookInput,
    }),
};
for (const [name, run] of Object.entries(runs)) {
  const r = run();
  if (r.status !== 0) throw new Error(`${name} exited ${r.status}: ${r.stderr}`);
}
const times = { node: [], sqlite: [], check: [], hook: [] };
for (let i = 0; i < 21; i++) {
  for (const [name, run] of Object.entries(runs)) {
    const t = process.hrtime.bigint();
    run();
    times[name].push(Number(process.hrtime.bigint() - t));
  }
}
rmSync(cache, { recursive: true, force: true });
const limit = median(times.node);
const result = {
  name: "startup",
  figures: [
    figure({
      figure: "`tessera check` as a process (refund allowed; SQLite Source; policy cache warm), median of 21",
      value: median(times.check),
      unit: "ns",
      limitName: "`node -e 0`",
      limitValue: limit,
      target: { ratio: 1.5 },
      peers: [{ name: "node with better-sqlite3 loaded and the database opened", value: median(times.sqlite) }],
    }),
    figure({
      figure: "`tessera hook claude-code` as a process (the same call on stdin), median of 21",
      value: median(times.hook),
      unit: "ns",
      limitName: "`node -e 0`",
      limitValue: limit,
      target: { ratio: 1.5 },
      peers: [{ name: "node with better-sqlite3 loaded and the database opened", value: median(times.sqlite) }],
    }),
  ],
};
printResult(result);
console.log(`RESULT ${JSON.stringify(result)}`);
