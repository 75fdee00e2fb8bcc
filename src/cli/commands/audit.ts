import { UsageError } from "../../platform/errors.js";
import { printable } from "../../platform/format.js";
import { openGatewayStore, readAuditLines, resolveStore } from "../../review/open.js";
import { parse } from "../args.js";
import { type Command, EXIT } from "../io.js";

/** `tessera audit export --jsonl`: every audit event, one JSON object per line, oldest first. */
export const audit: Command = {
  name: "audit",
  summary: "export the audit log (decisions, reviews, forwards) as JSON lines",
  usage:
    "usage: tessera audit export --jsonl [--store <file|postgres://…>] [--create] [--type <event type>] [--limit <n>] [--after <event id>]\n\n" +
    "  --store <file|postgres://…>  the store (default TESSERA_STORE, else .tessera/gateway.db)\n" +
    "  --create                     create the store when it does not exist (else a missing file or schema is an error)\n" +
    "  --type <type>                only events of this type, e.g. tessera.decision.v1\n" +
    "  --limit <n>                  at most n events, oldest first\n" +
    "  --after <event id>           the events after this one (the last id of the page before)",
  async run(args, io) {
    const { values, positionals } = parse(
      args,
      {
        jsonl: { type: "boolean" },
        store: { type: "string" },
        type: { type: "string" },
        create: { type: "boolean" },
        limit: { type: "string" },
        after: { type: "string" },
      },
      true,
    );
    const [action, ...extra] = positionals;
    if (action !== "export")
      throw new UsageError(
        action === undefined ? "missing an audit action: export" : `unknown audit action \`${action}\``,
      );
    if (extra.length > 0) throw new UsageError(`unexpected argument \`${extra[0]}\``);
    if (values.jsonl !== true) throw new UsageError("`audit export` needs `--jsonl` (the only export format)");
    if (values.limit !== undefined && !/^[1-9][0-9]{0,8}$/.test(values.limit))
      throw new UsageError(`\`--limit\` must be a positive whole number, got \`${printable(values.limit)}\``);
    const location = resolveStore(values.store, io.env, io.cwd);
    // opening creates any missing table, so a store the gateway has just created exports nothing
    await (await openGatewayStore(location, { mustExist: values.create !== true })).close();
    const query = {
      ...(values.type === undefined ? {} : { type: values.type }),
      ...(values.limit === undefined ? {} : { limit: Number(values.limit) }),
      ...(values.after === undefined ? {} : { after: values.after }),
    };
    for (const line of await readAuditLines(location, query)) io.stdout.write(`${line}\n`);
    return EXIT.ok;
  },
};
