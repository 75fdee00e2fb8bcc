import { shadowReport } from "../../audit/shadow-report.js";
import { UsageError } from "../../platform/errors.js";
import { jsonOut, printable, table } from "../../platform/format.js";
import { openGatewayStore, readAuditLines, resolveStore } from "../../review/open.js";
import { parse } from "../args.js";
import { type Command, EXIT, type Io } from "../io.js";

/** `tessera audit shadow`: what shadow mode would have blocked or held, per tool and check (adr/0128). */
function printShadow(lines: readonly string[], json: boolean, io: Io): void {
  const report = shadowReport(lines.map((l) => JSON.parse(l) as Record<string, unknown>));
  if (json) {
    io.stdout.write(jsonOut(report));
    return;
  }
  io.stdout.write(
    `shadow mode: ${report.decisions} decision${report.decisions === 1 ? "" : "s"}: ${report.would_block} would have been blocked, ${report.would_hold} held, ${report.allowed} allowed\n`,
  );
  const rows = report.tools.flatMap((t) =>
    t.checks.map((c) => [
      printable(t.tool),
      printable(c.check),
      c.source === null ? "-" : printable(c.source),
      String(c.would_block),
      String(c.would_hold),
      c.codes.map((x) => printable(x)).join(", "),
    ]),
  );
  if (rows.length > 0)
    io.stdout.write(`\n${table(["tool", "check", "source", "would block", "would hold", "codes"], rows)}\n`);
}

/** `tessera audit export --jsonl` and `tessera audit shadow`. */
export const audit: Command = {
  name: "audit",
  summary:
    "export the audit log (decisions, reviews, forwards) as JSON lines, or report what shadow mode would have stopped",
  usage:
    "usage: tessera audit export --jsonl [--store <file|postgres://…>] [--create] [--type <event type>] [--limit <n>] [--after <event id>]\n" +
    "       tessera audit shadow [--store <file|postgres://…>] [--create] [--json]\n\n" +
    "  --store <file|postgres://…>  the store (default TESSERA_STORE, else .tessera/gateway.db)\n" +
    "  --create                     create the store when it does not exist (else a missing file or schema is an error)\n" +
    "  --type <type>                with export: only events of this type, e.g. tessera.decision.v1\n" +
    "  --limit <n>                  with export: at most n events, oldest first\n" +
    "  --after <event id>           with export: the events after this one (the last id of the page before)\n" +
    "  --jsonl                      with export: one JSON event per line\n" +
    "  --json                       with shadow: print the ShadowReport",
  async run(args, io) {
    const { values, positionals } = parse(
      args,
      {
        jsonl: { type: "boolean" },
        json: { type: "boolean" },
        store: { type: "string" },
        type: { type: "string" },
        create: { type: "boolean" },
        limit: { type: "string" },
        after: { type: "string" },
      },
      true,
    );
    const [action, ...extra] = positionals;
    if (action !== "export" && action !== "shadow")
      throw new UsageError(
        action === undefined ? "missing an audit action: export or shadow" : `unknown audit action \`${action}\``,
      );
    if (extra.length > 0) throw new UsageError(`unexpected argument \`${extra[0]}\``);
    if (action === "export" && values.jsonl !== true)
      throw new UsageError("`audit export` needs `--jsonl` (the only export format)");
    if (action === "export" && values.json === true) throw new UsageError("`--json` is for `audit shadow`");
    if (
      action === "shadow" &&
      (values.jsonl === true || values.type !== undefined || values.limit !== undefined || values.after !== undefined)
    )
      throw new UsageError("`audit shadow` takes `--store`, `--create` and `--json`");
    if (values.limit !== undefined && !/^[1-9][0-9]{0,8}$/.test(values.limit))
      throw new UsageError(`\`--limit\` must be a positive whole number, got \`${printable(values.limit)}\``);
    const location = resolveStore(values.store, io.env, io.cwd);
    // opening creates any missing table, so a store the gateway has just created exports nothing
    await (await openGatewayStore(location, { mustExist: values.create !== true })).close();
    if (action === "shadow") {
      printShadow(await readAuditLines(location, { type: "tessera.decision.v1" }), values.json === true, io);
      return EXIT.ok;
    }
    const query = {
      ...(values.type === undefined ? {} : { type: values.type }),
      ...(values.limit === undefined ? {} : { limit: Number(values.limit) }),
      ...(values.after === undefined ? {} : { after: values.after }),
    };
    for (const line of await readAuditLines(location, query)) io.stdout.write(`${line}\n`);
    return EXIT.ok;
  },
};
