/**
 * A `check` case's own data: `fixtures: {<source>: file.sql | file.db}` builds SQLite sources in a
 * temporary folder, and `fixtures: {<source>: file.recorded.json}` loads a recording to replay
 * (adr/0040).
 * @module
 */
import { copyFileSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Policy, SourceConfig } from "../../../checks/policy.js";
import { TesseraError } from "../../../platform/errors.js";
import { loadRecording, type RecordingFile } from "../../../sources/recorded.js";
import type { CaseContext } from "../../types.js";
import { invalidCase } from "./case.js";

const RECORDED = /\.recorded\.json$/;

/** Whether a fixture is a recording to replay rather than a database to build. */
export const isRecording = (file: unknown): file is string => typeof file === "string" && RECORDED.test(file);

function sourceOf(policy: Policy, name: string, key: string, ctx: CaseContext): SourceConfig {
  const config = Object.hasOwn(policy.sources, name) ? policy.sources[name] : undefined;
  if (config === undefined) throw invalidCase(ctx, `${key}.${name}: the policy has no source \`${name}\``);
  return config;
}

/** The policy with each `.sql` / `.db` fixture built into a fresh SQLite file under `dir`. */
export async function buildFixtures(
  policy: Policy,
  fixtures: Readonly<Record<string, unknown>>,
  ctx: CaseContext,
  dir: string,
): Promise<Policy> {
  const sources: Record<string, SourceConfig> = { ...policy.sources };
  for (const [name, file] of Object.entries(fixtures)) {
    const config = sourceOf(policy, name, "fixtures", ctx);
    if (isRecording(file)) continue;
    if (typeof file !== "string" || !/\.(sql|db|sqlite3?)$/.test(file)) {
      throw invalidCase(
        ctx,
        `fixtures.${name}: expected a \`.sql\` or \`.db\` file, or a \`.recorded.json\` recording`,
      );
    }
    if (config.kind !== "sqlite") {
      throw invalidCase(
        ctx,
        `fixtures.${name}: source \`${name}\` is a ${config.kind} source; \`.sql\` and \`.db\` fixtures replace sqlite sources`,
      );
    }
    const from = resolve(ctx.dir, file);
    const to = join(dir, `${name.replace(/[^A-Za-z0-9_-]/g, "_")}.db`);
    try {
      if (file.endsWith(".sql")) await buildSqlite(readFileSync(from, "utf8"), to);
      else copyFileSync(from, to);
    } catch (err) {
      throw invalidCase(
        ctx,
        `fixtures.${name}: cannot build \`${file}\` (${err instanceof Error ? err.message.split("\n")[0] : String(err)})`,
      );
    }
    sources[name] = { ...config, path: to };
  }
  return { ...policy, sources };
}

async function buildSqlite(sql: string, to: string): Promise<void> {
  const { default: Database } = await import("better-sqlite3");
  const db = new Database(to);
  try {
    db.pragma("journal_mode = OFF"); // a throwaway copy: no journal, no fsync
    db.pragma("synchronous = OFF");
    db.exec(sql);
  } finally {
    db.close();
  }
}

/** The `*.recorded.json` fixtures, each checked against its source's kind up front. */
export async function loadRecordings(
  policy: Policy,
  fixtures: Readonly<Record<string, unknown>>,
  ctx: CaseContext,
): Promise<Map<string, RecordingFile>> {
  const out = new Map<string, RecordingFile>();
  for (const [name, file] of Object.entries(fixtures)) {
    if (!isRecording(file)) continue;
    const config = sourceOf(policy, name, "fixtures", ctx);
    let recording: RecordingFile;
    try {
      recording = await loadRecording(resolve(ctx.dir, file));
    } catch (err) {
      const where = err instanceof TesseraError && err.path !== undefined ? ` at ${err.path}` : "";
      throw invalidCase(ctx, `fixtures.${name}: ${err instanceof TesseraError ? err.message : String(err)}${where}`);
    }
    if (recording.kind !== config.kind) {
      throw invalidCase(
        ctx,
        `fixtures.${name}: \`${file}\` records a ${recording.kind} source; source \`${name}\` is a ${config.kind} source`,
      );
    }
    out.set(name, recording);
  }
  return out;
}
