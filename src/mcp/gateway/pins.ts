/**
 * Tool pinning: every definition the upstream lists is pinned at first sight (trust on first use)
 * and compared with its pin on every call; a changed one blocks its calls until a reviewer approves
 * it (adr/0037). The definitions last listed are cached until the upstream says they changed or
 * reconnects.
 * @module
 */
import { type ListToolsResult, ListToolsResultSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { digestOf } from "../../platform/digest.js";
import { REVIEW_EVENT, toolReviewEvent } from "../../review/events.js";
import type { ReviewStore } from "../../review/types.js";
import type { Clock } from "./types.js";
import type { Upstream } from "./upstream.js";

/** One listed definition, as the pin check needs it. */
export interface ToolEntry {
  readonly digest: string;
  /** The listed definition's `inputSchema`: the pinned one whenever `digest` matches the pin. */
  readonly inputSchema: unknown;
}

/** Whether a call to a tool may go on: its definition matches the pin, or why not. */
export type PinVerdict =
  | { readonly ok: true; readonly digest: string; readonly inputSchema: unknown }
  | {
      readonly ok: false;
      readonly code: "tool_definition_changed" | "tool_not_listed";
      readonly digest: string | null;
      readonly message: string;
    };

/** The upstream's tool definitions, pinned in the review store. */
export class ToolPins {
  private tools: Map<string, ToolEntry> | undefined;
  private refreshing: Promise<Map<string, ToolEntry>> | undefined;

  constructor(
    private readonly upstream: Upstream,
    private readonly reviews: ReviewStore,
    private readonly append: (type: string, payload: Record<string, unknown>) => Promise<void>,
    private readonly clock: Clock,
  ) {}

  /** Forget the cached definitions (list_changed, a reconnect). */
  invalidate(): void {
    this.tools = undefined;
  }

  /** Pin (first sight) or compare each listed definition; audit a pin or a change once. */
  async see(listed: readonly Tool[], into: Map<string, ToolEntry>): Promise<void> {
    for (const tool of listed) {
      const digest = digestOf(tool);
      into.set(tool.name, { digest, inputSchema: tool.inputSchema });
      const seen = await this.reviews.seeTool(tool.name, digest, tool, this.clock());
      if (seen.status === "pinned" || seen.newly_changed) {
        await this.append(
          REVIEW_EVENT,
          toolReviewEvent(
            seen.status === "pinned" ? "tool_pinned" : "tool_changed",
            tool.name,
            digest,
            seen.pinned_digest,
            null,
          ),
        );
      }
    }
  }

  /** A page of the client's own tools/list passed through: seen, and cached when it is the whole list. */
  async listed(result: ListToolsResult, cursor: string | undefined): Promise<void> {
    const into = this.tools ?? new Map<string, ToolEntry>();
    await this.see(result.tools, into);
    if (cursor === undefined && result.nextCursor === undefined) this.tools = into;
  }

  /** Read every page of the upstream's tools/list (one read at a time, shared by concurrent callers). */
  private refresh(): Promise<Map<string, ToolEntry>> {
    this.refreshing ??= (async () => {
      const next = new Map<string, ToolEntry>();
      let cursor: string | undefined;
      do {
        const page = await this.upstream.request<ListToolsResult>(
          { method: "tools/list", params: cursor === undefined ? {} : { cursor } },
          ListToolsResultSchema,
        );
        await this.see(page.tools, next);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      this.tools = next;
      return next;
    })().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  /** Whether a call to `name` may go on; throws `UpstreamError` when the definitions cannot be read. */
  async check(name: string): Promise<PinVerdict> {
    let entry = this.tools?.get(name);
    if (entry === undefined) entry = (await this.refresh()).get(name);
    if (entry === undefined)
      return {
        ok: false,
        code: "tool_not_listed",
        digest: null,
        message: `the upstream does not list a tool \`${name}\``,
      };
    const pinned = await this.reviews.pinnedDigest(name);
    if (pinned === entry.digest) return { ok: true, digest: entry.digest, inputSchema: entry.inputSchema };
    return {
      ok: false,
      code: "tool_definition_changed",
      digest: entry.digest,
      message: `the definition of \`${name}\` changed since it was pinned; a reviewer must check it (\`tessera review tools\`) and run \`tessera review approve-tool ${name} --digest <its changed digest>\``,
    };
  }
}
