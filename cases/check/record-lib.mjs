// Shared by cases/check/*/record.mjs: run every case of a folder through the REAL adapters
// (with the given source overrides pointing them at a live server), capture each source's
// requests and answers with recordingSource, and write the `*.recorded.json` files the cases name.
// Needs `npm run build` first (imports from dist/).
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parse } from "yaml";
import { loadPolicy } from "../../dist/checks/load.js";
import { createGate, registryOpener } from "../../dist/gate.js";
import { recordingSource } from "../../dist/sources/recorded.js";

/**
 * Record the cases of `dir`. `overrides` maps a source name to config keys replaced for the
 * recording run only (e.g. the live server's `base_url`). Files go to `dir`, or to the folder
 * TESSERA_RECORD_OUT names (the test that checks the committed recordings are reproducible).
 * Returns the files written.
 */
export async function recordCases(dir, overrides, outDir = process.env.TESSERA_RECORD_OUT || dir) {
  const cases = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort().map((f) => ({ file: f, doc: parse(readFileSync(join(dir, f), "utf8")) }));
  if (cases.length === 0) throw new Error(`no cases in ${dir}`);
  const policyFile = cases[0].doc.policy;
  const targets = new Map(); // source name -> recording file name
  for (const { file, doc } of cases) {
    if (doc.policy !== policyFile) throw new Error(`${file}: every case of a recorded folder uses ${policyFile}`);
    for (const [name, fixture] of Object.entries(doc.fixtures ?? {})) {
      if (targets.has(name) && targets.get(name) !== fixture) throw new Error(`${file}: source ${name} is recorded to ${targets.get(name)} elsewhere`);
      targets.set(name, fixture);
    }
  }
  const loaded = await loadPolicy(policyFile, { cwd: dir, env: process.env });
  const sources = { ...loaded.sources };
  for (const [name, patch] of Object.entries(overrides)) sources[name] = { ...sources[name], ...patch };
  const { audit: _audit, ...policy } = { ...loaded, sources };
  const live = registryOpener(policy);
  const recorders = new Map();
  const gate = createGate(policy, {
    openSource: async (name, config) => {
      const r = recordingSource(await live(name, config), config.kind);
      recorders.set(name, r);
      return r.source;
    },
  });
  try {
    for (const { file, doc } of cases) {
      const d = await gate.check(doc.call, doc.context ?? {});
      process.stdout.write(`${file}: ${d.decision}\n`); // a glance: the cases themselves pin the decisions
    }
  } finally {
    await gate.close();
  }
  const written = [];
  for (const [name, fixture] of [...targets].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const r = recorders.get(name);
    if (r === undefined) throw new Error(`source ${name} was never asked; nothing to record`);
    const out = resolve(outDir, fixture);
    writeFileSync(out, `${JSON.stringify(r.file(), null, 2)}\n`);
    written.push(out);
  }
  return written;
}
