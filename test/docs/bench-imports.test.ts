// The benchmarks import the built package by path; nothing else runs them in `npm test`, so a moved
// file or a renamed export would only show when someone runs `npm run bench`. Every name each
// bench file imports from dist/ must be exported there (run `npm run build` first).
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

const bench = resolve(__dirname, "../../bench");
const IMPORT = /import\s*\{([^}]*)\}\s*from\s*"(\.\.\/dist\/[^"]+)"/g;

const files = readdirSync(bench).filter((f) => f.endsWith(".mjs"));

describe("bench/ imports of the built package", () => {
  it("finds the bench files and their imports", () => {
    const all = files.flatMap((f) => [...readFileSync(join(bench, f), "utf8").matchAll(IMPORT)]);
    expect(all.length).toBeGreaterThan(10);
  });

  it.each(files)("%s imports only what dist/ exports", async (file) => {
    const text = readFileSync(join(bench, file), "utf8");
    for (const [, names, path] of text.matchAll(IMPORT)) {
      const mod = (await import(pathToFileURL(resolve(bench, path!)).href)) as Record<string, unknown>;
      const wanted = names!
        .split(",")
        .map((n) => n.trim().replace(/^type\s+/, ""))
        .filter((n) => n !== "" && !names!.includes(`type ${n}`))
        .map((n) => n.split(/\s+as\s+/)[0]!);
      for (const name of wanted) expect(Object.hasOwn(mod, name), `${file}: ${name} from ${path}`).toBe(true);
    }
  });
});
