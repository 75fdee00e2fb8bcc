// Builtin answer grading (DESIGN.md §8, issue 8): a 2,000-token answer against 50 documents of
// ≈ 2,000 characters each (≈ 100,000 characters, the Bedrock grounding-source limit), side by side
// with the limit: plain `includes` of pre-split, pre-normalized sentences in pre-normalized text.
import { evidenceDigest, gradeAnswer, normalize } from "../dist/index.js";
import { figure, fmtNs, printResult, timePerCallSync } from "./lib.mjs";

// deterministic words from a seeded generator (no Math.random on a benchmark either)
let seed = 0x9e3779b9;
const rand = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
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
const answer = spans.map((s) => `${s.text}${s.cite ? ` [${s.id}]` : ""}.`).join(" ");
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
  for (const s of prepared) if (s.cited !== undefined ? s.cited.includes(s.f) : paddedDocs.some((d) => d.includes(s.f))) ok++;
  if (ok !== prepared.length) throw new Error("limit disagrees");
};

// a stricter reference: the same includes after the token prefilter gradeAnswer uses, everything pre-computed
const docTokens = paddedDocs.map((d) => new Set(d.trim().split(" ")));
const probed = prepared.map((s) => {
  const ts = s.f.trim().split(" ");
  return { ...s, probes: [...new Set([ts[0], ts[ts.length >> 1], ts[ts.length - 1]])], citedTokens: s.cited === undefined ? undefined : docTokens[paddedDocs.indexOf(s.cited)] };
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

const opts = { warmup: 50, samples: 31, batch: 10 };
const limitNs = timePerCallSync(limit, opts);
const gradeNs = timePerCallSync(() => gradeAnswer(input), opts);
const prefilteredNs = timePerCallSync(prefiltered, opts);
const digest = evidenceDigest(documents);
const withDigest = { ...input, generation_digest: digest };
const digestNs = timePerCallSync(() => gradeAnswer(withDigest), opts);
const cold = { ...input, evidence: documents.map((d) => ({ ...d })) };
const coldNs = timePerCallSync(() => gradeAnswer({ ...cold, evidence: cold.evidence.map((d) => ({ ...d })) }), { warmup: 5, samples: 11, batch: 2 });

console.error(`grade: ${tokens} answer tokens, ${spans.length} sentences, ${documents.length} documents, ${chars} characters`);
const result = {
  name: "grade (builtin)",
  figures: [
    figure({
      figure: `builtin grade, ${tokens}-token answer vs ${documents.length} documents (${chars} chars), document text cached`,
      value: gradeNs,
      unit: "ns",
      limitName: "includes on pre-normalized text",
      limitValue: limitNs,
      target: { ratio: 3, max: 5e6 },
      peers: [
        { name: "reference: includes after the same token prefilter, all pre-computed", value: prefilteredNs },
        { name: "with generation_digest check (SHA-256 of the bundle)", value: digestNs },
        { name: "first sight of every document (normalization not cached)", value: coldNs },
      ],
    }),
  ],
};
printResult(result);
console.log(`limit ${fmtNs(limitNs)}, grade ${fmtNs(gradeNs)}`);
console.log(`RESULT ${JSON.stringify(result)}`);
