import { listActions } from "../../actions/index.js";
import { parse } from "../args.js";
import { jsonOut, styles, table } from "../../platform/format.js";
import { type Command, EXIT } from "../io.js";

/** `tessera actions [--json]`: the action catalog. */
export const actions: Command = {
  name: "actions",
  summary: "list the action kinds Tessera drafts (propose-and-approve; nothing is executed)",
  usage:
    'usage: tessera actions [--json]\n\nlists each action kind with the route and domains it drafts from and its field roles;\n--json prints {"actions": [...]}',
  async run(args, io) {
    const { values } = parse(args, { json: { type: "boolean" } });
    const list = listActions();
    if (values.json) {
      io.stdout.write(jsonOut({ actions: list }));
      return EXIT.ok;
    }
    const s = styles(io);
    io.stdout.write(
      table(
        ["kind", "routes", "domains", "title from", "field roles"].map(s.bold),
        list.map((a) => [a.kind, a.routes.join(", "), a.domains.join(", "), a.title_from, a.roles.join(", ")]),
      ),
    );
    for (const a of list) io.stdout.write(`\n${s.bold(a.kind)}: ${a.description}\n`);
    io.stdout.write(s.dim("\nproposals require approval; Tessera never executes them\n"));
    return EXIT.ok;
  },
};
