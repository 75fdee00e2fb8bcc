import { UsageError } from "../../platform/errors.js";
import { openGatewayStore, readAuditLines, resolveStore } from "../../review/open.js";
import { parse } from "../args.js";
import { type Command, EXIT } from "../io.js";

/** `tessera audit export --jsonl`: every audit event, one JSON object per line, oldest first. */
export const audit: Command = {
  name: "audit",
  summary: "export the audit log (decisions, reviews, forwards) as JSON lines",
  usage:
    "usage: tessera audit export --jsonl [--store <file|postgres://…>] [--create] [--type <event type>]\n\n" +
    "  --store <file|postgres://…>  the store (default TESSERA_STORE, else .tessera/gateway.db)\n" +
    "  --create                     create the store when it does not exist (else a missing file or schema is an error)\n" +
    "  --type <type>                only events of this type, e.g. tessera.decision.v1",
  async run(args, io) {
    const { values, positionals } = parse(
      args,
      { jsonl: { type: "boolean" }, store: { type: "string" }, type: { type: "string" }, create: { type: "boolean" } },
      true,
    );
    const [action, ...extra] = positionals;
    if (action !== "export")
      throw new UsageError(
        action === undefined ? "missing an audit action: export" : `unknown audit action \`${action}\``,
      );
    if (extra.length > 0) throw new UsageError(`unexpected argument \`${extra[0]}\``);
    if (values.jsonl !== true) throw new UsageError("`audit export` needs `--jsonl` (the only export format)");
    const location = resolveStore(values.store, io.env, io.cwd);
    // opening creates any missing table, so a store the gateway has just created exports nothing
    await (await openGatewayStore(location, { mustExist: values.create !== true })).close();
    for (const line of await readAuditLines(location)) {
      if (values.type === undefined || (JSON.parse(line) as { type: string }).type === values.type)
        io.stdout.write(`${line}\n`);
    }
    return EXIT.ok;
  },
};
