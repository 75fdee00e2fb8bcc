import { resolve } from "node:path";
import { exportGitRange, type IngestSummary, openWorkspace } from "../../evidence/index.js";
import { UsageError } from "../../platform/errors.js";
import { parse, required } from "../args.js";
import { jsonOut, styles, table } from "../../platform/format.js";
import { type Command, EXIT, type Io } from "../io.js";

const USAGE = `usage: tessera ingest <workspace-dir> [--json]
       tessera ingest git <repo> --range A..B --into <workspace-dir> [--json]

ingests runs/, logs/, prs/, tickets/ (or tickets.json) and commits/ into <dir>/.tessera/evidence.db,
re-reading only files that changed; \`ingest git\` first writes the commits of the range into
<dir>/commits/. Every problem is reported per file and the file skipped; the rest is ingested.
exit 0 when every file was ingested, 1 when a file was skipped, 2 on usage errors`;

function report(io: Io, dir: string, s: IngestSummary, json: boolean, extra: Record<string, unknown> = {}): number {
  if (json) {
    io.stdout.write(jsonOut({ workspace: dir, ...extra, ...s }));
  } else {
    const st = styles(io);
    io.stdout.write(
      `${st.bold(`ingested ${dir}`)}: ${s.files} files — ${s.read} read, ${s.unchanged} unchanged, ${s.skipped} skipped` +
        `${s.removed > 0 ? `, ${s.removed} removed` : ""}; ${s.records} records\n`,
    );
    if (s.problems.length > 0) {
      io.stdout.write(
        `\n${table(
          ["file", "problem", "detail"],
          s.problems.map((p) => [p.file, st.yellow(p.code), p.message]),
        )}`,
      );
    }
  }
  return s.skipped > 0 ? EXIT.failed : EXIT.ok;
}

/** `tessera ingest`: ingest a workspace folder, or export a git range into one first. */
export const ingest: Command = {
  name: "ingest",
  summary: "ingest a CI workspace (runs, logs, PRs, tickets) or a git range into its evidence store",
  usage: USAGE,
  async run(args, io) {
    if (args[0] === "git") {
      const { values, positionals } = parse(
        args.slice(1),
        { range: { type: "string" }, into: { type: "string" }, json: { type: "boolean" } },
        true,
      );
      if (positionals.length !== 1) throw new UsageError("`ingest git` takes one repository folder");
      const range = required(values.range, "range");
      const into = required(values.into, "into");
      const exported = exportGitRange(resolve(io.cwd, positionals[0]!), range, resolve(io.cwd, into));
      const ws = await openWorkspace(resolve(io.cwd, into));
      try {
        if (!values.json)
          io.stderr.write(`wrote ${exported.commits.length} commits of ${range} into ${into}/commits\n`);
        return report(io, into, ws.summary, values.json === true, { commits: exported.commits.length });
      } finally {
        ws.close();
      }
    }
    const { values, positionals } = parse(args, { json: { type: "boolean" } }, true);
    if (positionals.length !== 1) throw new UsageError("`ingest` takes one workspace folder");
    const dir = positionals[0]!;
    const ws = await openWorkspace(resolve(io.cwd, dir));
    try {
      return report(io, dir, ws.summary, values.json === true);
    } finally {
      ws.close();
    }
  },
};
