// Builtin answer grading (specs/grading.md, issue 8): a 2,000-token answer against 50 documents of
// ≈ 2,000 characters each (≈ 100,000 characters, the Bedrock grounding-source limit), side by side
// in one run with the issue's limit: plain `includes` of each pre-split, pre-normalized sentence in
// the pre-normalized documents (cited document, or every document for an uncited sentence).
//
// The headline figure is the per-request path the MCP `grade_answer` tool takes (src/mcp/tools.ts):
// JSON.parse of the request's JSON text, parseGradeInput (zod validation), gradeAnswer — on freshly
// parsed objects every call, so the per-document token sets (cached by document object) are rebuilt
// every call. It excludes the transport (stdio, JSON-RPC framing). The documents' texts are the same
// strings every call, so their normalization IS served from the core's text-keyed cache
// (src/core/text-cache.ts): the figure is "a request over documents this process has graded before".
// Peers:
//   - `tessera grade`'s own steps (parseJson with its duplicate-key and exact-number scan, parseGradeInput,
//     gradeAnswerAudited), excluding reading the file and printing;
//   - first sight: the headline path with the text cache evicted (8192 throwaway texts normalized)
//     before every call, outside the timed section, so every document is normalized and tokenized
//     inside it — what a request over never-seen documents, or a fresh `tessera grade` process
//     (minus start-up and JIT warm-up), pays;
//   - the same parsed objects every call (token sets and normalization all served from the caches);
//   - the headline path with a generation_digest check (SHA-256 of the bundle);
//   - token-prefiltered includes: an algorithmic reference (the prefilter gradeAnswer uses, all
//     pre-computed), not the issue's limit.
// Target (issue 8): the headline ≤ 3× the issue's limit, and under 5 ms.
// Contenders are measured interleaved, one sample of each per round, in an order that rotates
// (and reverses every other cycle) from round to round.
import { parseJson } from "../dist/platform/json.js";
import { normalizedText } from "../dist/core/text-cache.js";
import { evidenceDigest, gradeAnswer, gradeAnswerAudited, normalize, parseGradeInput } from "../dist/index.js";
import { figure, fmtNs, median, orderOf, printResult } from "./lib.mjs";

// deterministic words from a seeded generator (no Math.random on a benchmark either)
let seed = 0x9e3779b9;
const rand = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
const WORDS = Array.from({ length: 3000 }, (_, i) => `w${i.toString(36)}${"abcdefghij"[i % 10]}`);
const word = () => WORDS[Math.floor(rand() * WORDS.length)];
const sentence = (n) => Array.from({ length: n }, word).join(" ");

const documents = Array.from({ length: 50 }, (_, i) => {
  const parts = [];
  let text = "";
  while (text.length < 1990) {
    parts.push(`${sentence(12)}.`);
    text = parts.join(" ");
  }
  return { id: `doc-${i}`, revision: "1", text };
});
const chars = documents.reduce((n, d) => n + d.text.length, 0);

// 100 sentences of 20 tokens, each a verbatim span of a document; every tenth cites its document
const spans = [];
for (let i = 0; i < 100; i++) {
  const d = documents[Math.floor(rand() * documents.length)];
  const tokens = d.text.replace(/\./g, "").split(" ");
  const at = Math.floor(rand() * (tokens.length - 20));
  spans.push({ text: tokens.slice(at, at + 20).join(" "), id: d.id, cite: i % 10 === 0 });
}
// each sentence starts with a capital, as a sentence must for the grader to end the one before it
const capital = (t) => `${t[0].toUpperCase()}${t.slice(1)}`;
const answer = spans.map((s) => `${capital(s.text)}${s.cite ? ` [${s.id}]` : ""}.`).join(" ");
const tokens = answer.split(/\s+/).length;
const input = { request_id: "bench", query: "q", answer, evidence: documents };

const check = gradeAnswer(input);
if (check.state !== "supported") throw new Error(`expected supported, got ${check.state} (${check.reason})`);

// the limit: the same containment, with all splitting and normalization done ahead of time
const paddedDocs = documents.map((d) => ` ${normalize(d.text)} `);
const byId = new Map(documents.map((d, i) => [d.id, paddedDocs[i]]));
const prepared = spans.map((s) => ({ f: ` ${normalize(s.text)} `, cited: s.cite ? byId.get(s.id) : undefined }));
const limit = () => {
  let ok = 0;
  for (const s of prepared)
    if (s.cited !== undefined ? s.cited.includes(s.f) : paddedDocs.some((d) => d.includes(s.f))) ok++;
  if (ok !== prepared.length) throw new Error("limit disagrees");
};

// an algorithmic reference, not the issue's limit: the same includes behind the token prefilter
// gradeAnswer uses (first, middle and last token must be in the document), everything pre-computed
const docTokens = paddedDocs.map((d) => new Set(d.trim().split(" ")));
const probed = prepared.map((s) => {
  const ts = s.f.trim().split(" ");
  return {
    ...s,
    probes: [...new Set([ts[0], ts[ts.length >> 1], ts[ts.length - 1]])],
    citedTokens: s.cited === undefined ? undefined : docTokens[paddedDocs.indexOf(s.cited)],
  };
});
const prefiltered = () => {
  let ok = 0;
  for (const s of probed) {
    if (s.cited !== undefined) {
      if (s.probes.every((t) => s.citedTokens.has(t)) && s.cited.includes(s.f)) ok++;
    } else if (paddedDocs.some((d, i) => s.probes.every((t) => docTokens[i].has(t)) && d.includes(s.f))) ok++;
  }
  if (ok !== probed.length) throw new Error("prefiltered reference disagrees");
};

// the request as it arrives: JSON text, parsed afresh on every call
const rawJson = JSON.stringify(input);
const rawJsonWithDigest = JSON.stringify({ ...input, generation_digest: evidenceDigest(documents) });
const perRequest = () => gradeAnswer(parseGradeInput(JSON.parse(rawJson), "arguments"));
const cliSteps = () => gradeAnswerAudited(parseGradeInput(parseJson(rawJson), "input"), { policy: {} });
const withDigest = () => gradeAnswer(parseGradeInput(JSON.parse(rawJsonWithDigest), "arguments"));
const cachedObjects = () => gradeAnswer(input);
for (const [name, state] of [
  ["per request", perRequest().state],
  ["tessera grade's steps", cliSteps().result.state],
  ["with digest", withDigest().state],
]) {
  if (state !== "supported") throw new Error(`${name}: expected supported, got ${state}`);
}

// empty the text-keyed normalization cache (8192 entries, oldest evicted first; a hit does not
// refresh an entry) by normalizing 8192 texts never seen before. Run outside the timed section.
let evictions = 0;
const evictTextCache = () => {
  const tag = `evict${evictions++}`;
  for (let i = 0; i < 8192; i++) normalizedText({ text: `${tag} ${i}` });
};

// one sample = `batch` calls of one contender, each timed on its own (so a contender with an
// untimed per-call setup is timed the same way as the others); every round takes one sample of
// every contender, in an order that changes every round (orderOf, below)
function interleaved(contenders, { warmup, samples }) {
  for (const c of contenders)
    for (let i = 0; i < warmup; i++) {
      c.setup?.();
      c.fn();
    }
  const per = contenders.map(() => []);
  for (let s = 0; s < samples; s++) {
    for (const idx of orderOf(s, contenders.length)) {
      const { fn, setup, batch } = contenders[idx];
      let ns = 0;
      for (let i = 0; i < batch; i++) {
        setup?.();
        const t0 = process.hrtime.bigint();
        fn();
        ns += Number(process.hrtime.bigint() - t0);
      }
      per[idx].push(ns / batch);
    }
  }
  return per.map(median);
}
// the first-sight contender re-normalizes the 50 documents it grades, so after it the text cache
// holds them again and the next contender is not served a cold cache
const [limitNs, perRequestNs, cliNs, coldNs, cachedNs, digestNs, prefilteredNs] = interleaved(
  [
    { fn: limit, batch: 3 },
    { fn: perRequest, batch: 3 },
    { fn: cliSteps, batch: 3 },
    { fn: perRequest, setup: evictTextCache, batch: 3 },
    { fn: cachedObjects, batch: 3 },
    { fn: withDigest, batch: 3 },
    { fn: prefiltered, batch: 10 },
  ],
  { warmup: 20, samples: Number(process.env.GRADE_SAMPLES ?? 31) },
);

console.error(
  `grade: ${tokens} answer tokens, ${spans.length} sentences, ${documents.length} documents, ${chars} characters`,
);
const result = {
  name: "grade (builtin)",
  figures: [
    figure({
      figure: `builtin grade per request (JSON.parse + parseGradeInput + gradeAnswer on fresh objects; document texts seen before, normalization from the text cache), ${tokens}-token answer vs ${documents.length} documents (${chars} chars)`,
      value: perRequestNs,
      unit: "ns",
      limitName: "plain includes of pre-normalized sentences in pre-normalized text (the issue's limit)",
      limitValue: limitNs,
      target: { ratio: 3, max: 5e6 },
      peers: [
        {
          name: "first sight: the same per-request path, text cache evicted before each call (every document normalized and tokenized)",
          value: coldNs,
        },
        {
          name: "tessera grade's steps (parseJson + parseGradeInput + gradeAnswerAudited; no file read or output)",
          value: cliNs,
        },
        { name: "same parsed objects every call (token sets and normalization cached)", value: cachedNs },
        { name: "per request with generation_digest check (SHA-256 of the bundle)", value: digestNs },
        {
          name: "token-prefiltered includes, all pre-computed (an algorithmic reference, not the issue's limit)",
          value: prefilteredNs,
        },
      ],
    }),
  ],
};
printResult(result);
console.log(
  `limit ${fmtNs(limitNs)}, grade per request ${fmtNs(perRequestNs)}, first sight ${fmtNs(coldNs)}, cached objects ${fmtNs(cachedNs)}`,
);
console.log(`RESULT ${JSON.stringify(result)}`);
