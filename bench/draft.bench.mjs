// Drafting against grounding alone (issue 6, DESIGN.md §7 and §11): over the example workspace,
// one open evidence store, every question the workspace answers (each failed run for `incident`,
// each PR for `pr_summary`), timed side by side in this one run:
//   limit:  groundQuestion(ws, q)                         — the answer path alone
//   figure: draftAction(kind, groundQuestion(ws, q))      — grounding plus the drafter, whose
//           boundary re-verification rebuilds every claim and runs verifyField on every field
//   peer:   the approver's check on top: verifyProposal against the store and a fresh grounding
// Target: drafting within 1.2× of grounding alone (the boundary re-verification is nearly free).
// Run: npm run build && node bench/draft.bench.mjs
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { draftAction, verifyProposal } from "../dist/actions/index.js";
import { groundQuestion } from "../dist/answers/index.js";
import { FAILED_CONCLUSIONS, openWorkspace } from "../dist/evidence/index.js";
import { figure, printResult, timePerCallSync } from "./lib.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const ws = await openWorkspace(join(here, "..", "examples", "ci-workspace"));
const questions = [
  ...ws.listRuns().filter((r) => FAILED_CONCLUSIONS.includes(r.conclusion) && ws.hasLog(r.id)).map((r) => ["incident", `why did run ${r.id} fail?`]),
  ...ws.listPrs().map((p) => ["pr_summary", `summarize PR ${p.id.slice("pr:".length)}`]),
];
for (const [kind, q] of questions) {
  const p = draftAction(kind, groundQuestion(ws, q));
  if (!p.all_grounded) throw new Error(`not all grounded: ${kind} "${q}"`);
}

// one call = one pass over every question; interleaved samples keep the three measurements fair
const opts = { warmup: 20, samples: 31, batch: 5 };
let sink = 0;
const groundOnly = () => {
  for (const [, q] of questions) sink += groundQuestion(ws, q).claims.length;
};
const draft = () => {
  for (const [kind, q] of questions) sink += draftAction(kind, groundQuestion(ws, q)).fields.length;
};
const approve = () => {
  for (const [kind, q] of questions) {
    const p = draftAction(kind, groundQuestion(ws, q));
    sink += verifyProposal(p, (id) => ws.getRecord(id), { grounding: groundQuestion(ws, q) }).fields.length;
  }
};
const rounds = 3;
const g = [], d = [], a = [];
for (let i = 0; i < rounds; i++) {
  g.push(timePerCallSync(groundOnly, opts));
  d.push(timePerCallSync(draft, opts));
  a.push(timePerCallSync(approve, opts));
}
ws.close();
const best = (xs) => Math.min(...xs);
const n = questions.length;
const result = {
  name: "draft",
  figures: [
    figure({
      figure: `draft one proposal (ground + draftAction), mean over ${n} questions`,
      value: best(d) / n,
      unit: "ns",
      limitName: "groundQuestion alone",
      limitValue: best(g) / n,
      target: { ratio: 1.2 },
      peers: [{ name: "draft + verifyProposal (approver's check, re-grounds)", value: best(a) / n }],
    }),
  ],
};
if (sink === 0) throw new Error("nothing measured");
printResult(result);
console.log(`RESULT ${JSON.stringify(result)}`);
