// Shared benchmark harness (adr/0042): every figure is measured side by side with its limit
// and peers in one process run, and reported as a ratio, never as a bare absolute time.
import os from "node:os";

/** Median of a numeric array. */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * Time `fn` (sync or async): `warmup` calls, then `samples` samples of `batch` calls each.
 * Returns the median time per call in nanoseconds.
 */
export async function timePerCall(fn, { warmup = 200, samples = 31, batch = 100 } = {}) {
  for (let i = 0; i < warmup; i++) await fn(i);
  const per = [];
  let k = 0;
  for (let s = 0; s < samples; s++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) await fn(k++);
    per.push(Number(process.hrtime.bigint() - t0) / batch);
  }
  return median(per);
}

/** Same as timePerCall for synchronous functions, without await overhead in the loop. */
export function timePerCallSync(fn, { warmup = 200, samples = 31, batch = 100 } = {}) {
  for (let i = 0; i < warmup; i++) fn(i);
  const per = [];
  let k = 0;
  for (let s = 0; s < samples; s++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) fn(k++);
    per.push(Number(process.hrtime.bigint() - t0) / batch);
  }
  return median(per);
}

/**
 * The order of round `r` over `n` contenders: rotated by r, and reversed in every other run of n
 * rounds, so each contender goes first equally often and what runs just before it alternates
 * between its two neighbours in the list.
 */
export function orderOf(r, n) {
  const o = Array.from({ length: n }, (_, j) => (j + r) % n);
  return Math.floor(r / n) % 2 === 1 ? o.reverse() : o;
}

/** One line describing the machine, for RESULTS.md. */
export function machine() {
  const cpu = os.cpus()[0]?.model ?? "unknown cpu";
  return `${os.cpus().length} × ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}`;
}

/** Human time from nanoseconds. */
export function fmtNs(ns) {
  if (ns >= 1e9) return `${(ns / 1e9).toFixed(2)} s`;
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(2)} µs`;
  return `${ns.toFixed(0)} ns`;
}

/**
 * A benchmark's result, as bench/run.mjs collects it:
 * { name, figures: [{ figure, value, unit, limit: {name, value}, ratio, target, met, peers: [{name, value, ratio}] }] }
 * `ratio` is value ÷ limit (for times; for throughputs, limit ÷ value), so lower is better and 1 is the limit.
 */
export function figure({ figure, value, unit, limitName, limitValue, higherIsBetter = false, target, peers = [] }) {
  // a bound on the value itself: `max` for times and sizes, `min` for throughputs
  if (target?.max !== undefined && higherIsBetter)
    throw new Error(`${figure}: a throughput target takes \`min\`, not \`max\``);
  if (target?.min !== undefined && !higherIsBetter)
    throw new Error(`${figure}: a time or size target takes \`max\`, not \`min\``);
  const ratioOf = (v) => (higherIsBetter ? limitValue / v : v / limitValue);
  const ratio = ratioOf(value);
  return {
    figure,
    value,
    unit,
    limit: { name: limitName, value: limitValue },
    ratio,
    target: target ?? null,
    met:
      target === undefined
        ? null
        : (target.ratio === undefined || ratio <= target.ratio) &&
          (target.max === undefined || value <= target.max) &&
          (target.min === undefined || value >= target.min),
    peers: peers.map((p) => ({ name: p.name, value: p.value, ratio: ratioOf(p.value) })),
  };
}

/** Print a benchmark result as a small table on stdout. */
export function printResult(result) {
  console.log(`\n## ${result.name}`);
  for (const f of result.figures) {
    const v = f.unit === "ns" ? fmtNs(f.value) : `${f.value.toFixed(2)} ${f.unit}`;
    const lim = f.unit === "ns" ? fmtNs(f.limit.value) : `${f.limit.value.toFixed(2)} ${f.unit}`;
    console.log(
      `${f.figure}: ${v}  (${f.ratio.toFixed(2)}× the limit: ${f.limit.name} ${lim})${f.met === null ? "" : f.met ? "  target met" : "  TARGET MISSED"}`,
    );
    for (const p of f.peers)
      console.log(
        `    peer ${p.name}: ${f.unit === "ns" ? fmtNs(p.value) : `${p.value.toFixed(2)} ${f.unit}`} (${p.ratio.toFixed(2)}× the limit)`,
      );
  }
}
