/**
 * A compiled-policy cache for commands that start once per call (`tessera check`, `tessera hook`):
 * a policy file already loaded once is read back as its validated JSON, so neither the YAML parser
 * nor the zod schemas load. The key is the SHA-256 of the cache format, the package version, the
 * policy's absolute path and its exact text; a policy that uses `${VAR}` is never cached (its
 * interpolated values may be secrets). The cache lives in the user's own cache folder (mode 0700);
 * any problem reading or writing it falls back to loading the file. `TESSERA_POLICY_CACHE=off` turns it off.
 * @module
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { LoadOptions } from "./load.js";
import type { Policy } from "./policy.js";

/** Bump when the shape of a loaded Policy changes. */
const FORMAT = 2;

/** Where cached policies go: `$XDG_CACHE_HOME/tessera/policies`, else `~/.cache/tessera/policies`. */
export function policyCacheDir(env: Readonly<Record<string, string | undefined>>): string {
  const base =
    env.XDG_CACHE_HOME !== undefined && env.XDG_CACHE_HOME !== "" ? env.XDG_CACHE_HOME : join(homedir(), ".cache");
  return join(base, "tessera", "policies");
}

function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string })
      .version;
  } catch {
    return "unknown";
  }
}

/** `loadPolicy`, answered from the cache when this exact file was loaded before. */
export async function loadPolicyCached(file: string, options: LoadOptions = {}): Promise<Policy> {
  const env = options.env ?? process.env;
  const path = resolve(options.cwd ?? process.cwd(), file);
  const load = async () => (await import("./load.js")).loadPolicy(file, options);
  if (env.TESSERA_POLICY_CACHE === "off") return load();
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return load(); // its own error message
  }
  if (text.includes("${")) return load();
  const key = createHash("sha256")
    .update(JSON.stringify([FORMAT, packageVersion(), path, file, text]))
    .digest("hex");
  const dir = policyCacheDir(env);
  const entry = join(dir, `${key}.json`);
  try {
    return JSON.parse(readFileSync(entry, "utf8")) as Policy;
  } catch {
    // not cached yet (or unreadable): load, then cache
  }
  const policy = await load();
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const tmp = `${entry}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(policy), { mode: 0o600 });
    renameSync(tmp, entry);
  } catch {
    // a cache that cannot be written only costs time
  }
  return policy;
}
