/**
 * `tessera bench [names…]`: run the benchmarks of bench/ (each side by side with its limit and
 * peers) and write bench/RESULTS.md — the same as `npm run bench`.
 * @module
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { TesseraError } from "../../platform/errors.js";
import { type Command, EXIT } from "../io.js";

const RUNNER = fileURLToPath(new URL("../../../bench/run.mjs", import.meta.url));

/** `tessera bench`. */
export const bench: Command = {
  name: "bench",
  summary: "run the benchmarks and write bench/RESULTS.md",
  usage:
    "usage: tessera bench [names…]\n\nruns bench/<name>.bench.mjs (all by default) from a source checkout and writes bench/RESULTS.md",
  async run(args, io) {
    if (!existsSync(RUNNER))
      throw new TesseraError(
        "bench_missing",
        "the benchmarks ship with the source checkout, not the package: clone the repository",
      );
    const r = spawnSync(process.execPath, [RUNNER, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      encoding: "utf8",
      env: { ...io.env },
    });
    io.stdout.write(r.stdout ?? "");
    io.stderr.write(r.stderr ?? "");
    return r.status === 0 ? EXIT.ok : EXIT.failed;
  },
};
