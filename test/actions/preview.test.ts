import { describe, expect, it } from "vitest";
import {
  type ActionProposal,
  draftAction,
  NOT_EXECUTED_NOTICE,
  renderGithubIssue,
  renderMarkdown,
} from "../../src/actions/index.js";
import { rcaResult, records, summaryResult } from "./fixtures.js";

function unverify(p: ActionProposal, name: string): ActionProposal {
  const fields = p.fields.map((f) =>
    f.name === name ? { ...f, value: `${f.value} SECRET-UNVERIFIED`, verified: false } : f,
  );
  return { ...p, fields, all_grounded: false };
}

describe("previews", () => {
  const incident = draftAction("incident", rcaResult());

  it("markdown: verified title as heading, the notice, every verified field with its evidence", () => {
    const md = renderMarkdown(incident);
    expect(md.split("\n")[0]).toBe(
      "## Incident: src/cache.ts\\(12,5\\): error TS2322: Type 'string' is not assignable to type 'number'.",
    );
    expect(md).toContain(NOT_EXECUTED_NOTICE);
    expect(md).toContain("| Executed | no |");
    // the question is the asker's text, never checked against evidence: the row says so
    expect(md).toContain(`| Question (as asked, not evidence) | ${incident.question} |`);
    expect(md).toContain("| Fields verified | 8 of 8 |");
    for (const f of incident.fields.slice(1)) {
      expect(md).toContain(`#### ${f.name}`);
      expect(md).toContain(`\n${f.value}\n`);
      for (const id of f.support) expect(md).toContain(`\`${id}\``);
    }
  });

  it("renders no unverified field and names what was left out", () => {
    const p = unverify(incident, "log_2");
    for (const text of [renderMarkdown(p), renderGithubIssue(p).body]) {
      expect(text).not.toContain("SECRET-UNVERIFIED");
      expect(text).toContain("Not shown (did not verify): `log_2`");
      expect(text).toContain("| Fields verified | 7 of 8 |");
    }
  });

  it("an unverified title is not used as a heading or issue title", () => {
    const p = unverify(incident, "title");
    expect(renderMarkdown(p).split("\n")[0]).toBe("## Incident: untitled");
    expect(renderGithubIssue(p).title).toBeNull();
    expect(renderMarkdown(p)).not.toContain("SECRET-UNVERIFIED");
  });

  it("github issue: the PR's own title, and the body says nothing was executed", () => {
    const issue = renderGithubIssue(draftAction("pr_summary", summaryResult()));
    expect(issue.title).toBe("Fix cache key typing");
    expect(issue.body.startsWith("<!-- tessera proposal: pr_summary, not executed -->\n")).toBe(true);
    expect(issue.body).toContain(NOT_EXECUTED_NOTICE);
    expect(issue.body).toContain(`\`\`\`diff\n${records.hunkA.text}\n\`\`\``);
  });

  it("a refusal renders the refusal and no fields", () => {
    const p = draftAction("incident", summaryResult());
    const md = renderMarkdown(p);
    expect(md.split("\n")[0]).toBe("## Incident: refused");
    expect(md).toContain("Refused: \\`incident\\` drafts from the \\`rca\\` route");
    expect(md).not.toContain("####");
    expect(renderGithubIssue(p).title).toBeNull();
  });

  it("evidence text cannot break out of its code block or inject markup into the heading", () => {
    const p = draftAction("incident", rcaResult());
    const fields = p.fields.map((f) =>
      f.name === "run"
        ? { ...f, value: "```\n# injected" }
        : f.name === "title"
          ? { ...f, value: "[x](http://e) <b>" }
          : f,
    );
    const md = renderMarkdown({ ...p, fields });
    expect(md).toContain("````text\n```\n# injected\n````");
    expect(md.split("\n")[0]).toBe("## Incident: \\[x\\]\\(http://e\\) \\<b\\>");
  });

  it("field names and evidence ids (not verified: a handed-in proposal chooses them) cannot inject markup", () => {
    const p = draftAction("incident", rcaResult());
    const link = "[Approve now](https://evil.example)";
    const fields = p.fields.map((f, i) =>
      i === 1
        ? { ...f, name: `run\n\n${link}\n` }
        : i === 2
          ? { ...f, name: `x\` ${link} \``, verified: false }
          : i === 3
            ? { ...f, support: [`a\n\n${link}`] }
            : f,
    );
    for (const text of [renderMarkdown({ ...p, fields }), renderGithubIssue({ ...p, fields }).body]) {
      // the link only ever appears inside a one-line code span
      for (const line of text.split("\n").filter((l) => l.includes(link)))
        expect(line, line).toMatch(/`[^`\n]*\[Approve now\]\(https:\/\/evil\.example\)[^`\n]*`/);
      expect(text).not.toMatch(/^\[Approve now\]/m);
    }
  });

  it("is deterministic", () => {
    expect(renderMarkdown(draftAction("incident", rcaResult()))).toBe(
      renderMarkdown(draftAction("incident", rcaResult())),
    );
  });
});
