// `npm run bench`: run every bench/*.bench.mjs in its own process, then write bench/RESULTS.md.
// Each benchmark prints its result as one line `RESULT <json>` on stdout (see bench/lib.mjs).
import { execFileSync } from "node:child_process";
import { readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { fmtNs, machine } from "./lib.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith(".bench.mjs") && (only.length === 0 || only.some((o) => f.includes(o))))
  .sort();
const results = [];
for (const f of files) {
  process.stderr.write(`running ${f}…\n`);
  try {
    const out = execFileSync(process.execPath, ["--expose-gc", join(here, f)], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
      env: process.env,
      maxBuffer: 64 * 2 ** 20,
    });
    for (const line of out.split("\n")) {
      if (line.startsWith("RESULT ")) results.push(JSON.parse(line.slice(7)));
      else if (line.trim()) process.stdout.write(`${line}\n`);
    }
  } catch (err) {
    results.push({ name: f, error: String(err.message ?? err).split("\n")[0], figures: [] });
  }
}

const show = (v, unit) => (unit === "ns" ? fmtNs(v) : `${Number(v).toFixed(2)} ${unit}`);
const lines = [
  "# Benchmark results",
  "",
  `Machine: ${machine()}. Written by \`npm run bench\`; every figure was measured side by side with its limit and peers in the same run.`,
  "Ratio = figure ÷ limit for times (limit ÷ figure for throughputs): 1.00 is the physical limit, lower is better.",
  "",
  "| benchmark | figure | value | limit | ratio to limit | target | met | peers (ratio to limit) |",
  "|---|---|---|---|---|---|---|---|",
];
for (const r of results) {
  if (r.error) {
    lines.push(`| ${r.name} | failed: ${r.error} | | | | | | |`);
    continue;
  }
  for (const f of r.figures) {
    const target = f.target
      ? [
          f.target.ratio !== undefined ? `≤ ${Number(f.target.ratio.toFixed(2))}×` : null,
          f.target.max !== undefined ? `≤ ${show(f.target.max, f.unit)}` : null,
          f.target.min !== undefined ? `≥ ${show(f.target.min, f.unit)}` : null,
        ]
          .filter((t) => t !== null)
          .join(", ")
      : "";
    const peers = f.peers.map((p) => `${p.name}: ${show(p.value, f.unit)} (${p.ratio.toFixed(2)}×)`).join("; ");
    lines.push(
      `| ${r.name} | ${f.figure} | ${show(f.value, f.unit)} | ${f.limit.name}: ${show(f.limit.value, f.unit)} | ${f.ratio.toFixed(2)}× | ${target} | ${f.met === null ? "" : f.met ? "yes" : "**no**"} | ${peers} |`,
    );
  }
}
if (only.length === 0) {
  writeFileSync(join(here, "RESULTS.md"), `${lines.join("\n")}\n`);
  process.stderr.write(`wrote bench/RESULTS.md (${results.length} benchmarks)\n`);
} else {
  process.stderr.write("a subset was run: bench/RESULTS.md is left as it was (run all to rewrite it)\n");
}
if (results.some((r) => r.error)) process.exitCode = 1; // a benchmark that could not run is a failure; a missed target is not
