import { UsageError } from "../../platform/errors.js";
import { approveReview, approveTool, denyReview } from "../../review/actions.js";
import { formatDuration, parseDuration } from "../../review/duration.js";
import { type DiffLine, diffToolDefinitions } from "../../review/tool-diff.js";
import { openGatewayStore, resolveStore } from "../../review/open.js";
import { reviewJson } from "../../review/json.js";
import {
  HOLD_KIND_TEXT,
  type ListPage,
  type ReviewRecord,
  type ReviewState,
  REVIEW_STATES,
  type ToolPin,
} from "../../review/types.js";
import { parse } from "../args.js";
import { jsonOut, printable, type Styles, styles, table } from "../../platform/format.js";
import { type Command, EXIT, type Io } from "../io.js";

const USAGE =
  "usage: tessera review list [--all | --state <state>] [--limit <n>] [--after <id>] [--json]\n" +
  "       tessera review show <id> [--json]\n" +
  "       tessera review approve <id> [--ttl <duration>] [--by <name>] [--json]\n" +
  "       tessera review deny <id> [--reason <text>] [--by <name>] [--json]\n" +
  "       tessera review tools [--diff <name>] [--json]\n" +
  "       tessera review approve-tool <name> --digest <sha256:…> [--by <name>] [--json]\n" +
  "       tessera review serve [--port <n>] [--host 127.0.0.1] [--reviewers <file>]\n\n" +
  "the gateway's review queue: calls held for a human, and tool definitions that changed\n\n" +
  "  --store <file|postgres://…>  the gateway's store (default TESSERA_STORE, else .tessera/gateway.db)\n" +
  "  --create                     create the store when it does not exist (else a missing file or schema is an error)\n" +
  "  --all                        list every review, not only pending ones\n" +
  "  --state <state>              list reviews in one state: pending approved denied consumed expired\n" +
  "  --limit <n>                  list at most n reviews (oldest first); stderr names the next page's --after\n" +
  "  --after <id>                 list the reviews after this one (the last id of the page before)\n" +
  "  --ttl <duration>             how long this approval stays valid (default: the gateway's --approval-ttl)\n" +
  "  --by <name>                  who decides (default $USER)\n" +
  "  --reason <text>              why a call is denied: one line, at most 500 characters, shown to the agent\n" +
  "  --diff <name>                with `tools`: the pinned and the changed definition of one tool, line by line\n" +
  "  --digest <sha256:…>          the changed definition you reviewed, in full, as `review tools` shows it;\n" +
  "                               refused when the pending definition is another one by now\n\n" +
  "an approval lets exactly the held call (same tool, arguments and policy) through once, before it expires;\n" +
  "a held call nobody decides before the gateway's --review-ttl (default 1d) expires, and the call asked again is held anew";

const STATES = REVIEW_STATES;
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A review as `--json` prints it (src/review/json.ts, shared with `tessera serve`). */
export { reviewJson };

/**
 * A pin as `--json` prints it, with both definitions: the changed one is what a reviewer reads
 * before `approve-tool --digest <pending_digest>`, from the same row as its digest.
 */
function pinJson(p: ToolPin): Record<string, unknown> {
  return {
    tool: p.tool,
    state: p.pending_digest === null ? "pinned" : "changed",
    digest: p.digest,
    pinned_at: iso(p.pinned_at),
    pending_digest: p.pending_digest,
    changed_at: iso(p.changed_at),
    definition: p.definition,
    pending_definition: p.pending_definition,
  };
}

const shown = (text: string): string => printable(text);

/** A pin's diff as `--json` prints it: both digests, then the diff (empty parts when nothing is pending). */
function diffJson(p: ToolPin): Record<string, unknown> {
  const diff = diffToolDefinitions(
    p.tool,
    p.definition,
    p.pending_digest === null ? p.definition : p.pending_definition,
  );
  return {
    tool: p.tool,
    state: p.pending_digest === null ? "pinned" : "changed",
    digest: p.digest,
    pending_digest: p.pending_digest,
    description: diff.description,
    input_schema: diff.inputSchema,
    other: diff.other,
  };
}

const MARK: Readonly<Record<DiffLine["op"], string>> = { same: " ", removed: "-", added: "+" };

/** The pinned and the changed definition of one tool, part by part, `-` pinned only and `+` new only. */
function showToolDiff(p: ToolPin, s: Styles): string {
  if (p.pending_digest === null) return `${shown(p.tool)} has no changed definition: it is pinned at ${p.digest}\n`;
  const diff = diffToolDefinitions(p.tool, p.definition, p.pending_definition);
  const colour = { same: (t: string) => t, removed: s.red, added: s.green };
  const lines = [
    `${s.bold(shown(p.tool))}: pinned ${p.digest}`,
    `${" ".repeat([...shown(p.tool)].length)}  changed ${p.pending_digest}`,
  ];
  const parts: [string, readonly DiffLine[]][] = [
    ["description", diff.description],
    ["input schema", diff.inputSchema],
    ["other keys", diff.other],
  ];
  for (const [title, part] of parts) {
    if (part.length === 0) continue;
    lines.push("", s.bold(title));
    // each line made printable, so a definition cannot move the cursor or recolour the terminal
    for (const l of part) lines.push(colour[l.op](`${MARK[l.op]} ${shown(l.text)}`));
  }
  lines.push(
    "",
    `approve: tessera review approve-tool ${shown(p.tool)} --digest ${p.pending_digest}  (or leave it blocked)`,
  );
  return `${lines.join("\n")}\n`;
}

function stateColour(s: Styles, state: ReviewState): string {
  return state === "pending"
    ? s.yellow(state)
    : state === "approved" || state === "consumed"
      ? s.green(state)
      : s.red(state);
}

function showReview(r: ReviewRecord, s: Styles): string {
  const lines = [
    `${s.bold(r.id)}  ${stateColour(s, r.state)}  ${shown(r.tool)}`,
    `arguments   ${shown(JSON.stringify(r.arguments))}`,
    `digests     arguments ${r.arguments_digest}`,
    `            policy    ${r.policy_digest}`,
    `            effective ${r.effective_digest === "" ? "(none)" : r.effective_digest}`,
    `            context   ${r.context_digest}`,
    `held at     ${iso(r.created_at)}`,
  ];
  if (r.decided_at !== null) lines.push(`decided     ${iso(r.decided_at)} by ${shown(r.decided_by ?? "?")}`);
  if (r.decision_reason !== null) lines.push(`reason      ${shown(r.decision_reason)}`);
  // a call nobody decided waits for a reviewer until then; a decided one's approval lasts until then
  const deadline = r.state === "expired" ? "expired  " : r.decided_at === null ? "review by" : "expires  ";
  if (r.expires_at !== null) lines.push(`${deadline}   ${iso(r.expires_at)}`);
  if (r.consumed_at !== null) lines.push(`forwarded   ${iso(r.consumed_at)}`);
  lines.push("", "why it is held:");
  for (const kind of new Set(r.reasons.map((x) => x.kind))) lines.push(`  ${HOLD_KIND_TEXT[kind]}`);
  lines.push("");
  const rows = r.reasons.map((x) =>
    [
      x.argument,
      String(x.check),
      x.source ?? "",
      x.status,
      x.kind,
      x.codes.join(", ") + (x.message ? ` — ${x.message}` : ""),
    ].map(shown),
  );
  return `${lines.join("\n")}\n${table(["argument", "check", "source", "status", "why", "codes"], rows)}`;
}

/** `--limit`: a positive whole number of reviews. */
function parseLimit(text: string): number {
  if (!/^[1-9][0-9]{0,8}$/.test(text))
    throw new UsageError(`\`--limit\` must be a positive whole number, got \`${printable(text)}\``);
  return Number(text);
}

const TOOL_DIGEST = /^sha256:[0-9a-f]{64}$/;

/** `approve-tool` names the definition it approves, in full: a prefix could name one made to match it. */
function checkToolDigest(digest: string | undefined): void {
  if (digest === undefined)
    throw new UsageError(
      "`review approve-tool` needs `--digest <sha256:…>`: the changed digest `tessera review tools` shows for the definition you reviewed",
    );
  if (!TOOL_DIGEST.test(digest))
    throw new UsageError(
      `\`--digest\` must be a full \`sha256:\` and 64 hex digits as \`tessera review tools\` shows it, got \`${printable(digest)}\``,
    );
}

/** `tessera review`: list, show, approve and deny held calls; list and re-approve changed tools. */
export const review: Command = {
  name: "review",
  summary: "list, show, approve or deny calls the gateway held; approve changed tool definitions",
  usage: USAGE,
  async run(args, io) {
    // the web page is its own command (src/cli/commands/review-serve.ts), with its own options
    if (args[0] === "serve") return (await import("./review-serve.js")).reviewServe.run(args.slice(1), io);
    const { values, positionals } = parse(
      args,
      {
        store: { type: "string" },
        json: { type: "boolean" },
        all: { type: "boolean" },
        state: { type: "string" },
        ttl: { type: "string" },
        by: { type: "string" },
        digest: { type: "string" },
        reason: { type: "string" },
        diff: { type: "string" },
        create: { type: "boolean" },
        limit: { type: "string" },
        after: { type: "string" },
      },
      true,
    );
    const [action, target, ...extra] = positionals;
    if (action === undefined)
      throw new UsageError("missing a review action: list, show, approve, deny, tools or approve-tool");
    const needsTarget = action === "show" || action === "approve" || action === "deny" || action === "approve-tool";
    if (!["list", "tools", "show", "approve", "deny", "approve-tool"].includes(action))
      throw new UsageError(`unknown review action \`${action}\``);
    if (needsTarget && target === undefined)
      throw new UsageError(`\`review ${action}\` needs ${action === "approve-tool" ? "a tool name" : "a review id"}`);
    if ((!needsTarget && target !== undefined) || extra.length > 0)
      throw new UsageError(`unexpected argument \`${needsTarget ? extra[0] : target}\``);
    if (values.state !== undefined && !STATES.includes(values.state as ReviewState))
      throw new UsageError(`unknown state \`${values.state}\` (${STATES.join(", ")})`);
    if (action !== "list" && (values.limit !== undefined || values.after !== undefined))
      throw new UsageError(
        `\`${values.limit !== undefined ? "--limit" : "--after"}\` is an option of \`review list\` only`,
      );
    const limit = values.limit === undefined ? undefined : parseLimit(values.limit);
    if (action === "approve-tool") checkToolDigest(values.digest);
    else if (values.digest !== undefined) throw new UsageError("`--digest` is an option of `review approve-tool` only");
    if (values.diff !== undefined && action !== "tools")
      throw new UsageError("`--diff` is an option of `review tools` only");
    if (values.reason !== undefined && action !== "deny")
      throw new UsageError("`--reason` is an option of `review deny` only");
    const ttl = values.ttl === undefined ? undefined : parseDuration(values.ttl, "ttl");
    const by = values.by ?? io.env.USER ?? "unknown";
    const store = await openGatewayStore(resolveStore(values.store, io.env, io.cwd), {
      mustExist: values.create !== true,
    });
    try {
      return await act(
        action,
        target ?? "",
        {
          json: values.json === true,
          all: values.all === true,
          state: values.state as ReviewState | undefined,
          ttl,
          by,
          digest: values.digest ?? "",
          reason: values.reason,
          diff: values.diff,
          page: {
            ...(limit === undefined ? {} : { limit }),
            ...(values.after === undefined ? {} : { after: values.after }),
          },
        },
        store,
        io,
      );
    } finally {
      await store.close();
    }
  },
};

async function act(
  action: string,
  target: string,
  o: {
    json: boolean;
    all: boolean;
    state: ReviewState | undefined;
    ttl: number | undefined;
    by: string;
    reason: string | undefined;
    diff: string | undefined;
    digest: string;
    page: ListPage;
  },
  store: Awaited<ReturnType<typeof openGatewayStore>>,
  io: Io,
): Promise<number> {
  const s = styles(io);
  const now = Date.now();
  const out = (text: string) => io.stdout.write(text);
  switch (action) {
    case "list": {
      const state = o.all ? undefined : (o.state ?? "pending");
      // one more than the page, so stderr can say whether there is a next one
      const page = o.page.limit === undefined ? o.page : { ...o.page, limit: o.page.limit + 1 };
      const list = await store.reviews.list(now, state, page);
      if (o.page.limit !== undefined && list.length > o.page.limit) {
        list.length = o.page.limit;
        const total = await store.reviews.count(now, state);
        io.stderr.write(
          `showing ${list.length} of ${total} ${state === undefined ? "" : `${state} `}reviews; the next page: --after ${list.at(-1)!.id}\n`,
        );
      }
      if (o.json) out(jsonOut(list.map(reviewJson)));
      else if (list.length === 0) out(`no ${o.all ? "" : `${o.state ?? "pending"} `}reviews\n`);
      else {
        const rows = list.map((r) => [
          r.id,
          stateColour(s, r.state),
          shown(r.tool),
          [...new Set(r.reasons.map((x) => x.kind))].join(", "),
          shown([...new Set(r.reasons.flatMap((x) => x.codes))].join(", ")),
          iso(r.created_at)!,
          iso(r.expires_at) ?? "",
        ]);
        out(table(["id", "state", "tool", "why", "codes", "held at", "expires"], rows));
      }
      return EXIT.ok;
    }
    case "show": {
      const r = await store.reviews.get(target, now);
      if (r === null) throw new UsageError(`no review \`${target}\``);
      out(o.json ? jsonOut(reviewJson(r)) : showReview(r, s));
      return EXIT.ok;
    }
    case "approve": {
      const r = await approveReview(store.reviews, store.audit, target, o.by, now, o.ttl);
      out(
        o.json
          ? jsonOut(reviewJson(r))
          : `approved ${r.id}: the identical ${shown(r.tool)} call will be forwarded once before ${iso(r.expires_at)} (${formatDuration(r.expires_at! - r.decided_at!)})\n`,
      );
      return EXIT.ok;
    }
    case "deny": {
      const r = await denyReview(store.reviews, store.audit, target, o.by, now, o.reason);
      const why = r.decision_reason === null ? "" : ` (reason: ${shown(r.decision_reason)})`;
      out(o.json ? jsonOut(reviewJson(r)) : `denied ${r.id}: the ${shown(r.tool)} call will not be forwarded${why}\n`);
      return EXIT.ok;
    }
    case "tools": {
      const pins = await store.reviews.tools();
      if (o.diff !== undefined) {
        const pin = pins.find((p) => p.tool === o.diff);
        if (pin === undefined) throw new UsageError(`no pinned tool \`${o.diff}\``);
        out(o.json ? jsonOut(diffJson(pin)) : showToolDiff(pin, s));
        return EXIT.ok;
      }
      if (o.json) out(jsonOut(pins.map(pinJson)));
      else if (pins.length === 0) out("no pinned tools\n");
      else
        out(
          table(
            ["tool", "state", "pinned digest", "changed digest"],
            pins.map((p) => [
              shown(p.tool),
              p.pending_digest === null ? s.green("pinned") : s.red("changed"),
              p.digest,
              p.pending_digest ?? "",
            ]),
          ),
        );
      return EXIT.ok;
    }
    default: {
      const pin = await approveTool(store.reviews, store.audit, target, o.digest, o.by, now);
      out(o.json ? jsonOut(pinJson(pin)) : `approved the new definition of ${shown(pin.tool)} (${pin.digest})\n`);
      return EXIT.ok;
    }
  }
}
