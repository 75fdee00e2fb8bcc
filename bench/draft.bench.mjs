// Drafting against grounding alone (issue 6, DESIGN.md §7 and §11), over the example workspace and
// every question it answers (each failed run for `incident`, each PR for `pr_summary`), timed side
// by side in this one run. Two figures, each with target ≤ 1.2×:
//   1. in memory, over one open store: groundQuestion(ws, q) is the limit; the figure is
//      draftAction(kind, groundQuestion(ws, q)), whose boundary re-verification rebuilds every claim
//      and runs verifyField on every field. Peers: draftAction alone on saved groundings, and the
//      approver's check (draft + verifyProposal, which grounds a second time).
//   2. the path `tessera draft` takes: ground(dir, q) (open and refresh the store, ground, close) is
//      the limit; the figure adds draftAction.
// Nothing is cached across calls: each grounding yields fresh records, and the drafter normalizes
// every cited record again (the core's text cache is keyed by record object).
// Run: npm run build && node bench/draft.bench.mjs
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { draftAction, verifyProposal } from "../dist/actions/index.js";
import { ground, groundQuestion } from "../dist/answers/index.js";
import { FAILED_CONCLUSIONS, openWorkspace } from "../dist/evidence/index.js";
import { figure, median, printResult } from "./lib.mjs";

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

// one pass = every question once. Passes alternate (ground, draft, approve, draftAction alone) so
// load from other processes falls on all of them alike; each figure is the median pass.
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
// the boundary alone: drafting from groundings made once (fresh result objects each pass, so no cache carries over)
const saved = questions.map(([kind, q]) => [kind, JSON.stringify(groundQuestion(ws, q))]);
const boundaryOnly = () => {
  for (const [kind, json] of saved) sink += draftAction(kind, JSON.parse(json)).fields.length;
};
const parseOnly = () => {
  for (const [, json] of saved) sink += JSON.parse(json).claims.length;
};
const time = (fn) => {
  const t0 = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t0);
};
for (let i = 0; i < 20; i++) [groundOnly, draft, approve, boundaryOnly, parseOnly].forEach((f) => f());
const g = [], d = [], a = [], b = [], j = [];
for (let i = 0; i < 101; i++) {
  g.push(time(groundOnly));
  d.push(time(draft));
  a.push(time(approve));
  b.push(time(boundaryOnly) - time(parseOnly));
}
ws.close();

// the path `tessera draft` takes: open (and refresh) the store, ground, draft — against `ground` alone
const dir = join(here, "..", "examples", "ci-workspace");
const time2 = async (fn) => {
  const t0 = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t0);
};
const groundE2E = async () => {
  for (const [, q] of questions) sink += (await ground(dir, q)).claims.length;
};
const draftE2E = async () => {
  for (const [kind, q] of questions) sink += draftAction(kind, await ground(dir, q)).fields.length;
};
for (let i = 0; i < 3; i++) {
  await groundE2E();
  await draftE2E();
}
const ge = [], de = [];
for (let i = 0; i < 15; i++) {
  ge.push(await time2(groundE2E));
  de.push(await time2(draftE2E));
}
const n = questions.length;
const result = {
  name: "draft",
  figures: [
    figure({
      figure: `draft one proposal (ground + draftAction), median pass over ${n} questions, per question`,
      value: median(d) / n,
      unit: "ns",
      limitName: "groundQuestion alone",
      limitValue: median(g) / n,
      target: { ratio: 1.2 },
      peers: [
        { name: "draftAction alone (the boundary re-verification)", value: Math.max(0, median(b)) / n },
        { name: "draft + verifyProposal (approver's check, re-grounds)", value: median(a) / n },
      ],
    }),
    figure({
      figure: `tessera draft path: ground(dir, q) + draftAction, median pass over ${n} questions, per question`,
      value: median(de) / n,
      unit: "ns",
      limitName: "ground(dir, q) alone",
      limitValue: median(ge) / n,
      target: { ratio: 1.2 },
    }),
  ],
};
if (sink === 0) throw new Error("nothing measured");
printResult(result);
console.log(`RESULT ${JSON.stringify(result)}`);
