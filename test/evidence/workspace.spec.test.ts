// Pins specs/workspace.md: its example files are written into a real folder and ingested by the
// real store (SQLite on disk); every pinned table is checked row by row against what the store
// holds, and `ingest git` against a repository built with the git binary.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { groundQuestion } from "../../src/answers/index.js";
import type { EvidenceRecord } from "../../src/core/index.js";
import { cleanLogLine, exportGitRange, openWorkspace, type Workspace } from "../../src/evidence/index.js";
import { specFiles, writeSpecFiles } from "../core/spec-files.js";
import { specTable, specText, value, word } from "../core/spec-tables.js";

const SPEC = "workspace.md";
const FILES = specFiles(SPEC, "Example workspace");
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A fresh folder holding the spec's example workspace. */
function example(): string {
  const dir = mkdtempSync(join(tmpdir(), "tessera-spec-ws-"));
  dirs.push(dir);
  return writeSpecFiles(dir, FILES);
}

async function withWorkspace<T>(dir: string, f: (ws: Workspace) => T): Promise<T> {
  const ws = await openWorkspace(dir);
  try {
    return f(ws);
  } finally {
    ws.close();
  }
}

/** Every record id in the store, read from the SQLite file itself. */
function storedIds(dir: string): string[] {
  const db = new Database(join(dir, ".tessera", "evidence.db"), { readonly: true });
  try {
    return db
      .prepare<[], { id: string }>("SELECT id FROM records ORDER BY id")
      .all()
      .map((r) => r.id);
  } finally {
    db.close();
  }
}

/** A problem table's content cell: a JSON string, or `bytes:` and hex. */
function content(cell: string): string | Uint8Array {
  const m = /^`bytes:([0-9a-f]*)`$/.exec(cell);
  return m ? Buffer.from(m[1]!, "hex") : (value(cell) as string);
}

describe("specs/workspace.md", () => {
  it("has its example files: ten, with a tab-separated --log-failed log", () => {
    expect(FILES.map((f) => f.path)).toEqual([
      "runs/501.json",
      "logs/501.log",
      "runs/502.json",
      "logs/502.txt",
      "prs/12.json",
      "prs/12.diff",
      "tickets/OPS-7.json",
      "tickets.json",
      "commits/4be1c07d9a2f3e5b6c7d8e9f0a1b2c3d4e5f6a7b.json",
      "commits/4be1c07d9a2f3e5b6c7d8e9f0a1b2c3d4e5f6a7b.diff",
    ]);
    // an editor that turns the tabs into spaces would change what the log means
    const log = FILES.find((f) => f.path === "logs/501.log")!.text;
    for (const line of log.trimEnd().split("\n")) expect(line.split("\t")).toHaveLength(3);
  });

  describe("log line examples", () => {
    const t = specTable(SPEC, "Log line examples (pinned)");
    it("has its table", () => {
      expect(t.header).toEqual(["raw line", "job", "step", "text"]);
      expect(t.rows.length).toBeGreaterThanOrEqual(8);
    });
    it.each(t.rows.map((r) => [r[0]!, r]))("cleanLogLine(%s)", (_raw, r) => {
      expect(cleanLogLine(value(r[0]!) as string)).toEqual({ job: r[1], step: r[2], text: value(r[3]!) });
    });
  });

  describe("records of the example", async () => {
    const dir = example();
    const t = specTable(SPEC, "Records of the example (pinned)");
    const records = await withWorkspace(
      dir,
      (ws) => new Map(t.rows.map((r) => [word(r[0]!)!, ws.getRecord(word(r[0]!)!)])),
    );

    it("the store holds exactly the table's records", () => {
      expect(t.header).toEqual(["id", "source", "locator kind", "locator parts", "text"]);
      expect(storedIds(dir)).toEqual(t.rows.map((r) => word(r[0]!)!).sort());
    });

    it.each(t.rows.map((r) => [word(r[0]!)!, r]))("%s", (id, r) => {
      const got = records.get(id) as EvidenceRecord;
      expect(got).toBeDefined();
      const source = word(r[1]!)!;
      const bytes = readFileSync(join(dir, source));
      expect(got).toEqual({
        id,
        source,
        locator: { kind: r[2], parts: value(r[3]!) },
        text: value(r[4]!),
        // the file's hash, except on log lines
        ...(r[2] === "log-line" ? {} : { revision: `sha256:${createHash("sha256").update(bytes).digest("hex")}` }),
      });
      expect(Object.keys(got)).toEqual(
        r[2] === "log-line" ? ["id", "source", "locator", "text"] : ["id", "source", "locator", "text", "revision"],
      );
    });

    it("every record's id and locator parts follow the ids-and-locators table", () => {
      const ids = specTable(SPEC, "Ids and locators (pinned)");
      expect(ids.header).toEqual(["record", "id", "locator kind", "locator parts, in order", "text"]);
      const byKind = new Map(ids.rows.map((r) => [word(r[2]!)!, r]));
      expect(new Set(t.rows.map((r) => r[2]))).toEqual(new Set(byKind.keys()));
      for (const r of t.rows) {
        const row = byKind.get(r[2]!)!;
        // `run:<id>` → /^run:[^:]+$/; a file path or header may hold a colon only in the last field
        const pattern = new RegExp(
          `^${word(row[1]!)!
            .split(/<[^>]+>/)
            .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
            .join("(.+)")}$`,
        );
        expect(word(r[0]!)!, `${r[0]} against ${row[1]}`).toMatch(pattern);
        const names = (value(r[3]!) as [string, string][]).map(([n]) => n);
        const allowed = row[3]!.split(", ").map((alt) => alt.split(" or ").map((n) => word(n)!));
        expect(names.length, r[0]).toBe(allowed.length);
        names.forEach((n, i) => expect(allowed[i], `${r[0]} part ${i}`).toContain(n));
      }
    });

    it("a cited record's locator renders as the kind, then name=value per part", async () => {
      const result = await withWorkspace(dir, (ws) => groundQuestion(ws, "why did run 501 fail?"));
      expect(result.grounded).toBe(true);
      const supports = result.claims.flatMap((c) => c.support);
      expect(supports.length).toBeGreaterThan(0);
      for (const s of supports)
        expect(s.locator.render).toBe([s.locator.kind, ...s.locator.parts.map(([n, v]) => `${n}=${v}`)].join(" "));
      const shown = /\(`(log-line run=501 [^`]+)`\)/.exec(specText(SPEC))![1]!;
      expect(supports.map((s) => s.locator.render)).toContain(shown);
    });
  });

  describe("problem examples", () => {
    const t = specTable(SPEC, "Problem examples (pinned)");
    const codes = new Map(specTable(SPEC, "Problems").rows.map((r) => [word(r[0]!)!, r[1]!]));

    it("has its tables, and each code's effect agrees between them", () => {
      expect(t.header).toEqual(["file", "content", "problem", "effect"]);
      for (const r of t.rows)
        if (word(r[2]!) !== undefined) expect(codes.get(word(r[2]!)!)!.split(", or "), r[2]).toContain(r[3]);
      // every code of the problems table has an example
      const shown = new Set(t.rows.map((r) => word(r[2]!)));
      for (const code of codes.keys()) expect(shown, code).toContain(code);
    });

    it.each(t.rows.map((r) => [`${r[0]} ${r[2]}`, r]))("%s", async (_name, r) => {
      const dir = example();
      const file = word(r[0]!)!;
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(join(dir, file), content(r[1]!));
      const { summary, sources } = await withWorkspace(dir, (ws) => ({
        summary: ws.summary,
        sources: storedSources(dir),
      }));
      const code = word(r[2]!);
      if (r[3] === "ignored") {
        expect(summary.files).toBe(10);
        expect(summary.problems).toEqual([]);
        return;
      }
      expect(summary.files).toBe(11);
      expect(summary.problems.map((p) => [p.file, p.code])).toEqual([[file, code]]);
      expect(summary.skipped).toBe(r[3] === "skipped" ? 1 : 0);
      // a file's records are stored unless it was skipped; a left-out ticket's file holds no other
      expect(sources.includes(file)).toBe(r[3] === "warning");
      expect(summary.read).toBe(r[3] === "skipped" ? 10 : 11);
    });
  });

  describe("the store and its refresh", () => {
    const dir = example();
    const t = specTable(SPEC, "Refresh steps (pinned)");

    it("has its table", () => {
      expect(t.header).toEqual(["step", "change", "files", "read", "unchanged", "skipped", "removed", "records"]);
      expect(t.rows.map((r) => r[0])).toEqual(t.rows.map((_r, i) => String(i + 1)));
    });

    it.each(t.rows.map((r) => [`${r[0]}: ${r[1]}`, r]))("step %s", async (_name, r) => {
      const change = r[1]!;
      const m = /^(touch|write|delete) `([^`]+)`(?: (`.*`))?$/.exec(change);
      if (m !== null) {
        const path = join(dir, m[2]!);
        if (m[1] === "touch") {
          const st = statSync(path);
          utimesSync(path, st.atime, new Date(st.mtimeMs + 60_000));
        } else if (m[1] === "write") writeFileSync(path, value(m[3]!) as string);
        else unlinkSync(path);
      } else expect(["first open", "none"]).toContain(change);
      if (change === "first open") expect(existsSync(join(dir, ".tessera"))).toBe(false);
      const summary = await withWorkspace(dir, (ws) => ws.summary);
      expect(existsSync(join(dir, ".tessera", "evidence.db"))).toBe(true);
      const { files, read, unchanged, skipped, removed, records } = summary;
      expect({ files, read, unchanged, skipped, removed, records }).toEqual({
        files: Number(r[2]),
        read: Number(r[3]),
        unchanged: Number(r[4]),
        skipped: Number(r[5]),
        removed: Number(r[6]),
        records: Number(r[7]),
      });
      expect(files).toBe(read + unchanged + skipped);
    });

    it("without refresh the store is used as it is; a vanished folder is an error", async () => {
      const d = example();
      await withWorkspace(d, () => undefined);
      unlinkSync(join(d, "tickets.json"));
      const ws = await openWorkspace(d, { refresh: false });
      try {
        expect(ws.getRecord("ticket:OPS-8")).toBeDefined();
        expect(ws.refresh().removed).toBe(1);
        expect(ws.getRecord("ticket:OPS-8")).toBeUndefined();
      } finally {
        ws.close();
      }
      rmSync(d, { recursive: true, force: true });
      await expect(openWorkspace(d)).rejects.toMatchObject({ code: "workspace_not_found" });
    });
  });

  describe("tessera ingest git", () => {
    it("writes commits/<sha>.json with the table's keys in order, and the patch beside it", async () => {
      const keys = specTable(SPEC, "`tessera ingest git`");
      expect(keys.header).toEqual(["key", "value"]);
      const repo = mkdtempSync(join(tmpdir(), "tessera-spec-git-"));
      const into = mkdtempSync(join(tmpdir(), "tessera-spec-ws-"));
      dirs.push(repo, into);
      const env = {
        ...process.env,
        GIT_AUTHOR_NAME: "Ada Rivera",
        GIT_AUTHOR_EMAIL: "rivera@acme.example",
        GIT_COMMITTER_NAME: "Ada Rivera",
        GIT_COMMITTER_EMAIL: "rivera@acme.example",
        GIT_AUTHOR_DATE: "2026-03-03T09:00:00+01:00",
        GIT_COMMITTER_DATE: "2026-03-03T09:00:00+01:00",
      };
      const git = (...args: string[]) => execFileSync("git", ["-C", repo, ...args], { env, encoding: "utf8" }).trim();
      git("init", "-q", "-b", "main");
      writeFileSync(join(repo, "nightly.sh"), "#!/bin/sh\nnpm run test:checkout\n");
      git("add", "nightly.sh");
      git("commit", "-q", "-m", "Add the nightly script");
      writeFileSync(join(repo, "nightly.sh"), "#!/bin/sh\n./wait-for-db.sh\nnpm run test:checkout\n");
      git("commit", "-q", "-am", "Wait for the database in nightly checkout\n\nRefs OPS-8.\n");
      const [first, second] = git("rev-list", "--reverse", "HEAD").split("\n");
      expect(exportGitRange(repo, `${first}..HEAD`, into).commits).toEqual([second]);

      const file = join(into, "commits", `${second}.json`);
      const text = readFileSync(file, "utf8");
      const doc = JSON.parse(text) as Record<string, string>;
      expect(Object.keys(doc)).toEqual(keys.rows.map((r) => word(r[0]!)));
      expect(text).toBe(`${JSON.stringify(doc, null, 2)}\n`);
      expect(doc).toEqual({
        sha: second,
        subject: "Wait for the database in nightly checkout",
        body: "Refs OPS-8.",
        author: "Ada Rivera <rivera@acme.example>",
        date: "2026-03-03T09:00:00+01:00",
      });
      expect(existsSync(join(into, "commits", `${second}.diff`))).toBe(true);
      await withWorkspace(into, (ws) => {
        expect(ws.summary.problems).toEqual([]);
        expect(ws.hunks(second!).map((h) => h.id)).toEqual([`hunk:${second}:nightly.sh:1`]);
        expect(ws.getRecord(`commit:${second}`)?.text.split("\n")[0]).toBe(
          `commit ${second}: Wait for the database in nightly checkout`,
        );
      });
      expect(() => exportGitRange(repo, "HEAD", into)).toThrow(/must look like `A\.\.B`/);
      expect(() => exportGitRange(repo, "nope..HEAD", into)).toThrow(expect.objectContaining({ code: "git_failed" }));
    });
  });
});

/** The `source` of every stored record. */
function storedSources(dir: string): string[] {
  const db = new Database(join(dir, ".tessera", "evidence.db"), { readonly: true });
  try {
    return db
      .prepare<[], { source: string }>("SELECT DISTINCT source FROM records")
      .all()
      .map((r) => r.source);
  } finally {
    db.close();
  }
}
