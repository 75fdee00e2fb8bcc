// Core verifier throughput over a 10 MB synthetic CI log split into line records (issue 2,
// adr/0042). Two figures, each measured side by side with its limit in this one run:
//   1. normalize throughput (MB of UTF-8 evidence per second), against the limit: one plain
//      String.prototype.includes pass over the same records, already normalized. Target ≥ 30 MB/s.
//   2. snippet claims verified per second against their cited records with the normalized-text
//      cache warm, against the limit: plain `includes` of the pre-normalized claim in the
//      pre-normalized cited records. Target: within 3× of the limit.
// Run: npm run build && node bench/core.bench.mjs
import { isSupported, normalize } from "../dist/index.js";
import { normalizedText } from "../dist/core/text-cache.js";
import { figure, median, printResult, timePerCallSync } from "./lib.mjs";

const TARGET_BYTES = 10 * 2 ** 20;

// deterministic pseudo-random numbers: a benchmark must not depend on the run
let seed = 0x2f6b1d;
const rand = (n) => {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed % n;
};
const pick = (xs) => xs[rand(xs.length)];

const jobs = ["build", "test (ubuntu-latest, 20)", "lint", "deploy"];
const steps = ["Run npm ci", "Run npm test", "Compile", "Upload artifacts"];
const ascii = [
  () =>
    `src/core/file${rand(400)}.ts(${rand(900)},${rand(80)}): error TS${2300 + rand(100)}: Type 'string' is not assignable to type 'number'.`,
  () => `npm ERR! code ELIFECYCLE errno ${rand(3)} tessera@0.1.0 test: \`vitest run\``,
  () => `  ✓ test/core/match.test.ts > operators > case ${rand(5000)} ${rand(40)}ms`,
  () =>
    `Error: connect ECONNREFUSED 127.0.0.1:${5000 + rand(1000)} at TCPConnectWrap.afterConnect [as oncomplete] (node:net:${rand(2000)}:${rand(20)})`,
  () => `##[group]Run actions/checkout@v4 with ref refs/heads/feature-${rand(999)} and fetch-depth 1`,
  () => `    at Object.<anonymous> (/home/runner/work/tessera/src/checks/run${rand(50)}.ts:${rand(300)}:${rand(40)})`,
  () =>
    `Downloaded https://registry.npmjs.org/package-${rand(3000)}/-/package-${rand(3000)}-1.${rand(20)}.${rand(9)}.tgz (${rand(900)} kB)`,
];
const nonAscii = [
  () => `Fehler: Datei „src/übersicht-${rand(300)}.ts“ konnte nicht geöffnet werden — Zugriff verweigert (${rand(99)})`,
  () => `エラー: テストケース ${rand(800)} が失敗しました（期待値 ${rand(50)}、実際 ${rand(50)}）`,
  () => `✗ café-crème-${rand(200)} déjà vu: naïve façade résumé — Ærøskøbing Łódź Straße ${rand(1000)}`,
  () => `警告: 依赖项 pkg-${rand(300)} 已弃用 🚧 请升级到 ${rand(9)}.${rand(9)}.${rand(9)}`,
  () => `Ошибка сборки: модуль «core-${rand(90)}» не найден 🔥 ${rand(10000)}`,
];

function line(i) {
  const second = String(i % 60).padStart(2, "0");
  const minute = String(Math.floor(i / 60) % 60).padStart(2, "0");
  const text = rand(10) < 3 ? pick(nonAscii)() : pick(ascii)();
  return `${pick(jobs)}\t${pick(steps)}\t2026-11-30T04:${minute}:${second}.${String(rand(1e7)).padStart(7, "0")}Z ${text}`;
}

const enc = new TextEncoder();
const records = [];
let bytes = 0;
for (let i = 0; bytes < TARGET_BYTES; i++) {
  const text = line(i);
  bytes += enc.encode(text).length + 1;
  records.push({
    id: `log-${i}`,
    source: "ci",
    locator: {
      kind: "log-line",
      parts: [
        ["run", "1"],
        ["line", String(i + 1)],
      ],
    },
    text,
  });
}
const mb = bytes / 2 ** 20;
const nonAsciiShare = records.filter((r) => /[^\x00-\x7f]/.test(r.text)).length / records.length;
console.log(
  `log: ${mb.toFixed(2)} MB, ${records.length} line records, ${(nonAsciiShare * 100).toFixed(0)}% of lines contain non-ASCII`,
);

// ---- figure 1: normalize throughput ------------------------------------------------------------
const normalizedTexts = records.map((r) => normalize(r.text));
const absent = "#"; // normalized text never holds it, so includes reads every character of every record
let sink = 0;
const passNormalize = () => {
  for (const r of records) sink += normalize(r.text).length;
};
const passIncludes = () => {
  for (const t of normalizedTexts) if (t.includes(absent)) sink++;
};
const passLower = () => {
  for (const r of records) sink += r.text.toLowerCase().length;
};
/**
 * Median nanoseconds per call of each pass, measured in alternating rounds so that a change in
 * machine load during the run hits the figure and its limit alike.
 */
function interleaved(passes, rounds) {
  for (const f of passes) timePerCallSync(f, { warmup: 2, samples: 1, batch: 1 });
  const times = passes.map(() => []);
  for (let r = 0; r < rounds; r++)
    passes.forEach((f, i) => times[i].push(timePerCallSync(f, { warmup: 0, samples: 1, batch: 1 })));
  return times.map(median);
}
const [nsNormalize, nsIncludes, nsLower] = interleaved([passNormalize, passIncludes, passLower], 9);
const mbps = (ns) => mb / (ns / 1e9);
const normalizeMbps = mbps(nsNormalize);
const includesMbps = mbps(nsIncludes);
console.log(
  "figure 1 limit: one String.prototype.includes pass over the already-normalized records (the cost of merely reading " +
    "the evidence once); peer: a plain toLowerCase pass, the cheapest single step of normalization.",
);

// ---- figure 2: snippet claims verified per second ----------------------------------------------
// every 10th record yields a claim: a run of its message tokens, citing that record and its two neighbours
const claims = [];
for (let i = 1; i + 1 < records.length; i += 10) {
  const rec = records[i];
  const message = rec.text.slice(rec.text.indexOf("Z ") + 2).trim();
  const words = message.split(/ +/);
  const start = rand(Math.max(1, words.length - 4));
  const text = words.slice(start, start + 3 + rand(6)).join(" ");
  claims.push({ text, support: [records[i - 1], rec, records[i + 1]] });
}
const checkOne = (c) => isSupported(c).supported;
let verified = 0;
for (const c of claims) if (checkOne(c)) verified++; // also warms the normalized-text cache
if (verified !== claims.length)
  throw new Error(`only ${verified} of ${claims.length} claims verified: the workload is wrong`);
// The limit reads the very strings the verifier's cache holds. Strings normalized before figure 1
// have aged through its 10 MB of allocation and sit scattered in old space; a limit reading those
// ran about 2.5x slower than one reading fresh strings and made this ratio look 3x better than it is.
const limitClaims = claims.map((c) => ({ f: normalize(c.text), ts: c.support.map((r) => normalizedText(r)) }));
let limitFound = 0;
for (const c of limitClaims) if (c.ts.some((t) => t.includes(c.f))) limitFound++;
console.log(
  `claims: ${claims.length}; verified ${verified}; found by plain includes ${limitFound} (includes ignores token boundaries, so it may find more)`,
);

const passVerify = () => {
  for (const c of claims) if (checkOne(c)) sink++;
};
const passLimit = () => {
  for (const c of limitClaims) if (c.ts.some((t) => t.includes(c.f))) sink++;
};
// Two peers split the gap between verification and the limit into the parts no verifier can skip:
// normalizing the claim as it arrives, and finding each cited record's cached normalized text.
const passNormalizeClaim = () => {
  for (let i = 0; i < claims.length; i++) {
    const f = normalize(claims[i].text);
    if (limitClaims[i].ts.some((t) => t.includes(f))) sink++;
  }
};
const passLookup = () => {
  for (let i = 0; i < claims.length; i++) {
    const f = limitClaims[i].f;
    if (claims[i].support.some((r) => normalizedText(r).includes(f))) sink++;
  }
};
const [nsVerify, nsLimit, nsNormalizeClaim, nsLookup] = interleaved(
  [passVerify, passLimit, passNormalizeClaim, passLookup],
  31,
);
const perSecond = (ns) => claims.length / (ns / 1e9);
console.log(
  "figure 2 limit: for each claim, String.prototype.includes of the pre-normalized claim text in its pre-normalized cited " +
    "records; verification also normalizes the claim text, tries the claim grammar and checks token boundaries.",
);
if (sink === -1) console.log(sink); // keep the work observable

const result = {
  name: "core",
  figures: [
    figure({
      figure: "normalize throughput, 10 MB CI log (line records, mixed ASCII and non-ASCII)",
      value: normalizeMbps,
      unit: "MB/s",
      limitName: "includes over pre-normalized records",
      limitValue: includesMbps,
      higherIsBetter: true,
      target: { min: 30 },
      peers: [{ name: "toLowerCase pass", value: mbps(nsLower) }],
    }),
    figure({
      figure: "snippet claims verified per second (cited records' normalized text cached)",
      value: perSecond(nsVerify),
      unit: "claims/s",
      limitName: "includes of pre-normalized claim in pre-normalized records",
      limitValue: perSecond(nsLimit),
      higherIsBetter: true,
      target: { ratio: 3 },
      peers: [
        { name: "includes after normalizing the claim", value: perSecond(nsNormalizeClaim) },
        { name: "includes after looking up each cited record's cached text", value: perSecond(nsLookup) },
      ],
    }),
  ],
};
printResult(result);
console.log(`RESULT ${JSON.stringify(result)}`);
