import { relative } from "node:path";
import { findCaseFiles } from "../../replay/load.js";
import { type CaseReport, runCases } from "../../replay/run.js";
import { parse } from "../args.js";
import { printable, styles } from "../../platform/format.js";
import { type Command, EXIT } from "../io.js";

/** `tessera test [paths…]`: run verdict cases offline, one line per case, then `N passed, N failed`. */
export const test: Command = {
  name: "test",
  summary: "run verdict cases from cases/ (or the given files and folders)",
  usage:
    "usage: tessera test [paths…] [--json]\n\nruns every case (default: ./cases); exit 0 when all pass, 1 when one fails, 2 when one is malformed",
  async run(args, io) {
    const { values, positionals } = parse(args, { json: { type: "boolean" } }, true);
    const files = findCaseFiles(positionals.length > 0 ? positionals : ["cases"], io.cwd);
    const s = styles(io);
    const progress = io.stderr.isTTY === true && !values.json;
    const reports = await runCases(files, io.env, (r, i) => {
      if (values.json) {
        if (progress) io.stderr.write(`\r${i + 1}/${files.length}`);
        return;
      }
      const mark =
        r.status === "passed"
          ? s.green("pass")
          : r.status === "skipped"
            ? s.yellow("skip")
            : s.red(r.status === "invalid" ? "bad " : "FAIL");
      io.stdout.write(
        `${mark}  ${printable(relative(io.cwd, r.file))}${r.note ? s.dim(`  ${printable(r.note)}`) : ""}\n`,
      );
      for (const f of r.failures) io.stdout.write(`        ${printable(f)}\n`);
      if (r.skipped) io.stdout.write(`        skipped: ${printable(r.skipped)}\n`);
    });
    const count = (st: CaseReport["status"]) => reports.filter((r) => r.status === st).length;
    const passed = count("passed");
    const failed = count("failed") + count("invalid");
    const skipped = count("skipped");
    if (values.json) {
      if (progress) io.stderr.write("\n");
      io.stdout.write(
        `${JSON.stringify({ passed, failed, skipped, cases: reports.map((r) => ({ ...r, file: relative(io.cwd, r.file) })) }, null, 2)}\n`,
      );
    } else {
      io.stdout.write(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}\n`);
    }
    if (count("invalid") > 0) return EXIT.usage;
    return failed > 0 ? EXIT.failed : EXIT.ok;
  },
};
