// ARCHITECTURE.md stays true as the tree changes: it names every folder of src/ with its job, every
// file path it names exists, every link resolves, and every fence rule it lists is in the config.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const DOC = readFileSync(join(ROOT, "ARCHITECTURE.md"), "utf8");

/** Every `code span` that looks like a repository path: a known top folder or a dotfile at the root. */
function namedPaths(text: string): string[] {
  const spans = [...text.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]!);
  return [...new Set(spans.filter((s) => /^(src|test|specs|cases|adr|examples|bench)\/|^\.[\w-]+\.js$/.test(s)))];
}

describe("ARCHITECTURE.md", () => {
  it("gives every folder of src/ its row in the folder table", () => {
    const folders = readdirSync(join(ROOT, "src")).filter((f) => statSync(join(ROOT, "src", f)).isDirectory());
    expect(folders.length).toBeGreaterThan(5);
    for (const f of folders) expect(DOC, `src/${f}/ has no row`).toMatch(new RegExp(`^\\| \`src/${f}/\` \\| \\S`, "m"));
  });

  it("names only paths that exist", () => {
    const paths = namedPaths(DOC);
    expect(paths.length).toBeGreaterThan(40);
    const missing = paths.filter((p) => !existsSync(join(ROOT, p.replace(/<[^>]+>.*$/, ""))));
    expect(missing).toStrictEqual([]);
  });

  it("links only to files that exist", () => {
    const links = [...DOC.matchAll(/\]\(([^)#\s]+)\)/g)].map((m) => m[1]!).filter((l) => !/^https?:/.test(l));
    expect(links.length).toBeGreaterThan(10);
    expect(links.filter((l) => !existsSync(join(ROOT, l)))).toStrictEqual([]);
  });

  it("lists every rule of the fence, and no rule the fence does not have", async () => {
    const config = (await import(pathToFileURL(join(ROOT, ".dependency-cruiser.js")).href)).default as {
      forbidden: { name: string }[];
    };
    const listed = [...DOC.matchAll(/^- (`[a-z-]+`(?:, `[a-z-]+`)*):/gm)].flatMap((m) =>
      [...m[1]!.matchAll(/`([a-z-]+)`/g)].map((n) => n[1]!),
    );
    expect([...listed].sort()).toStrictEqual(config.forbidden.map((r) => r.name).sort());
  });

  it("is linked from the README", () => {
    expect(readFileSync(join(ROOT, "README.md"), "utf8")).toContain("[ARCHITECTURE.md](ARCHITECTURE.md)");
  });
});
