// Policy loading: every error carries the file, line and YAML path; `${VAR}` interpolation; the
// digest ignores the environment (adr/0006); defaults and relative paths are applied.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { analyzePolicy, loadPolicy, parsePolicy, PolicyError } from "../../src/checks/index.js";
import { policyJsonSchema } from "../../src/cli/commands/policy.js";

const CHECK = `version: 1
sources:
  billing: { kind: sqlite, path: ./billing.db }
tools:
  refund_order:
    arguments:
      order_id:
        ground:
          checks:
            - source: billing
              query: SELECT customer_id, status FROM orders WHERE order_id = :value
              match:
                - { column: customer_id, ctx: customer_id }
                - { column: status, value: delivered }
`;

function firstError(text: string, env: Record<string, string> = {}): string {
  try {
    parsePolicy(text, "policy.yaml", { env, baseDir: "/p" });
  } catch (err) {
    expect(err).toBeInstanceOf(PolicyError);
    return (err as Error).message;
  }
  throw new Error("expected a policy error");
}

describe("policy errors carry file, line and YAML path", () => {
  const cases: [string, string, string][] = [
    [
      "unknown key in a condition",
      CHECK.replace("{ column: status, value", "{ colum: status, value"),
      'policy.yaml:14: tools.refund_order.arguments.order_id.ground.checks[0].match[1]: unknown key "colum"',
    ],
    ["unknown top-level key", `${CHECK}extras: 1\n`, 'policy.yaml:15: unknown key "extras"'],
    ["missing version", CHECK.replace("version: 1\n", ""), "policy.yaml:1: missing key `version`"],
    [
      "wrong version",
      CHECK.replace("version: 1", "version: 2"),
      "policy.yaml:1: version: expected `1`, got number `2`",
    ],
    [
      "unknown source kind",
      CHECK.replace("kind: sqlite", "kind: oracle"),
      "policy.yaml:3: sources.billing.kind: unknown kind `oracle`: expected one of `sqlite`, `postgres`, `mysql`, `http`, `mcp`",
    ],
    ["missing path", CHECK.replace(", path: ./billing.db", ""), "policy.yaml:3: sources.billing: missing key `path`"],
    [
      "wrong type",
      CHECK.replace("path: ./billing.db", "path: ./billing.db, timeout_ms: fast"),
      "policy.yaml:3: sources.billing.timeout_ms: expected number, got string `fast`",
    ],
    [
      "negative timeout",
      CHECK.replace("path: ./billing.db", "path: ./billing.db, timeout_ms: -5"),
      "policy.yaml:3: sources.billing.timeout_ms: must be greater than 0, got number `-5`",
    ],
    [
      "undefined source",
      CHECK.replace("- source: billing", "- source: ledger"),
      "policy.yaml:10: tools.refund_order.arguments.order_id.ground.checks[0].source: undefined source `ledger` (defined: `billing`)",
    ],
    [
      "write statement",
      CHECK.replace("SELECT customer_id, status FROM orders", "DELETE FROM orders"),
      "policy.yaml:11: tools.refund_order.arguments.order_id.ground.checks[0].query: a query must be one read-only `SELECT` or `WITH` statement, got `delete`",
    ],
    [
      "hidden write",
      CHECK.replace(
        "SELECT customer_id, status FROM orders WHERE",
        "WITH d AS (DELETE FROM orders RETURNING *) SELECT customer_id, status FROM d WHERE",
      ),
      "policy.yaml:11: tools.refund_order.arguments.order_id.ground.checks[0].query: a query must be read-only; `DELETE` is not allowed",
    ],
    [
      "two statements",
      CHECK.replace("order_id = :value", "order_id = :value; SELECT 1"),
      "policy.yaml:11: tools.refund_order.arguments.order_id.ground.checks[0].query: a query must be one statement",
    ],
    [
      "positional placeholder",
      CHECK.replace("order_id = :value", "order_id = ?"),
      "policy.yaml:11: tools.refund_order.arguments.order_id.ground.checks[0].query: sqlite queries bind by name as `:name`; `?` is not supported",
    ],
    [
      "quoted placeholder",
      CHECK.replace("order_id = :value", "order_id = ':value'"),
      "policy.yaml:11: tools.refund_order.arguments.order_id.ground.checks[0].query: placeholder `:value` is inside a quoted literal, so it is compared as text and never bound; remove the quotes",
    ],
    [
      "wrong request kind",
      CHECK.replace("query: SELECT customer_id, status FROM orders WHERE order_id = :value", "path: /orders/{value}"),
      "policy.yaml:11: tools.refund_order.arguments.order_id.ground.checks[0].path: a sqlite source needs `query`, not `path`",
    ],
    [
      "two operands",
      CHECK.replace("{ column: status, value: delivered }", "{ column: status, value: delivered, ctx: status }"),
      "policy.yaml:14: tools.refund_order.arguments.order_id.ground.checks[0].match[1]: a column condition needs exactly one of `ctx`, `arg` and `value`",
    ],
    [
      "in without a list",
      CHECK.replace("{ column: status, value: delivered }", "{ column: status, op: in, value: delivered }"),
      "policy.yaml:14: tools.refund_order.arguments.order_id.ground.checks[0].match[1]: `op: in` needs `value`: a list of literals",
    ],
    [
      "unknown operator",
      CHECK.replace("{ column: status, value: delivered }", "{ column: status, op: like, value: delivered }"),
      "policy.yaml:14: tools.refund_order.arguments.order_id.ground.checks[0].match[1].op: expected `eq` or `ne` or `gt` or `gte` or `lt` or `lte` or `in` or `not_in` or `is_null` or `not_null`, got string `like`",
    ],
    [
      "rows with a fraction",
      CHECK.replace("{ column: status, value: delivered }", "{ rows: eq, value: 0.5 }"),
      "policy.yaml:14: tools.refund_order.arguments.order_id.ground.checks[0].match[1]: a `rows` condition needs `value`: a whole number of rows",
    ],
    [
      "no conditions",
      CHECK.replace(/match:\n.*\n.*\n/, "match: []\n"),
      "policy.yaml:12: tools.refund_order.arguments.order_id.ground.checks[0].match: a check needs at least one `match` condition",
    ],
    [
      "on_error typo",
      CHECK.replace(
        "              match:",
        "              retry: { attempts: 1, on_error: alow }\n              match:",
      ),
      "policy.yaml:12: tools.refund_order.arguments.order_id.ground.checks[0].retry.on_error: expected `block` or `hold` or `allow`, got string `alow`",
    ],
    [
      "malformed yaml",
      CHECK.replace("{ kind: sqlite, path: ./billing.db }", "{ kind: sqlite, path: ./billing.db"),
      "policy.yaml:4: invalid yaml: flow map in block collection must be sufficiently indented and end with a }",
    ],
    [
      "duplicate key",
      CHECK.replace("version: 1\n", "version: 1\nversion: 1\n"),
      "policy.yaml:2: invalid yaml: map keys must be unique",
    ],
    ["not a mapping", "- 1\n", "policy.yaml:1: a policy is a mapping with `version`, `sources` and `tools`"],
    [
      "missing variable",
      CHECK.replace("./billing.db", '"${BILLING_DB}"'),
      "policy.yaml:3: sources.billing.path: environment variable `BILLING_DB` is not set",
    ],
    [
      "mcp with both",
      CHECK.replace(
        "billing: { kind: sqlite, path: ./billing.db }",
        "billing: { kind: sqlite, path: ./billing.db }\n  m: { kind: mcp, command: node, url: http://127.0.0.1:1/mcp }",
      ),
      "policy.yaml:4: sources.m: an mcp source needs exactly one of `command` (stdio) and `url` (streamable http)",
    ],
  ];
  it.each(cases)("%s", (_name, text, message) => {
    expect(firstError(text)).toBe(message);
  });

  it("collects every issue for lint, in line order", () => {
    const text = CHECK.replace("{ column: status, value", "{ colum: status, value").replace(
      "path: ./billing.db",
      "path: ./billing.db, pool: 3",
    );
    const { policy, issues } = analyzePolicy(text, "policy.yaml", { env: {} });
    expect(policy).toBeNull();
    expect(issues.map((i) => [i.line, i.code, i.message])).toEqual([
      [3, "schema_invalid", 'unknown key "pool"'],
      [14, "schema_invalid", 'unknown key "colum"'],
    ]);
  });

  it("warns about on_error: allow and an unset unlisted_tools", () => {
    const text = CHECK.replace(
      "              match:",
      "              retry: { on_error: allow }\n              match:",
    );
    const { policy, issues } = analyzePolicy(text, "policy.yaml", { env: {} });
    expect(policy).not.toBeNull();
    expect(issues.map((i) => [i.severity, i.code, i.line])).toEqual([
      ["warning", "on_error_allow", 12],
      ["warning", "unlisted_tools_default", null],
    ]);
  });

  it("refuses a placeholder that nothing declares: it could be read from the agent or the host (adr/0046)", () => {
    const text = CHECK.replace("order_id = :value", "order_id = :value AND region = :regoin");
    const { policy, issues } = analyzePolicy(text, "policy.yaml", { env: {} });
    expect(policy).toBeNull();
    expect(issues.filter((i) => i.severity === "error").map((i) => [i.code, i.line, i.message])).toEqual([
      [
        "binding_undeclared",
        11,
        "a placeholder names `regoin`, which is not `value`, a trusted context field or a listed argument of `refund_order`: declare it under `context:` if the host supplies it, or list it under `tools.refund_order.arguments` if the agent does",
      ],
    ]);
    // declared either way, it loads and binds from that one place
    const asContext = parsePolicy(`context: [regoin]\n${text}`, "policy.yaml", { env: {} });
    expect(asContext.context).toEqual(["customer_id", "regoin"]);
    const asArgument = parsePolicy(text.replace(/\n$/, "").concat("\n      regoin: {}\n"), "policy.yaml", { env: {} });
    expect(asArgument.tools.refund_order!.arguments.regoin).toEqual({ ground: { checks: [] }, as_text: false });
  });
});

describe("loading", () => {
  it("interpolates ${VAR}, keeps $${…} literal, and digests the uninterpolated document", () => {
    const text = CHECK.replace("./billing.db", '"${DB_DIR}/billing.db"').replace("delivered", () => "'$${literal}'");
    const a = parsePolicy(text, "p.yaml", { env: { DB_DIR: "/srv/a" } });
    const b = parsePolicy(text, "p.yaml", { env: { DB_DIR: "/srv/secret-b" } });
    expect(a.sources.billing).toMatchObject({ path: "/srv/a/billing.db" });
    expect(b.sources.billing).toMatchObject({ path: "/srv/secret-b/billing.db" });
    expect(a.digest).toBe(b.digest);
    expect(a.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(JSON.stringify(a)).not.toContain("secret-b");
    const cond = a.tools.refund_order!.arguments.order_id!.ground.checks[0]!.match[1]!;
    expect(cond).toEqual({ column: "status", value: "${literal}" });
  });

  it("changes the digest when the policy changes, not when only formatting does", () => {
    const a = parsePolicy(CHECK, "p.yaml", { env: {} });
    const reformatted = parsePolicy(
      CHECK.replace("{ kind: sqlite, path: ./billing.db }", "\n    kind: sqlite\n    path: ./billing.db  # comment"),
      "p.yaml",
      { env: {} },
    );
    const changed = parsePolicy(CHECK.replace("delivered", "shipped"), "p.yaml", { env: {} });
    expect(reformatted.digest).toBe(a.digest);
    expect(changed.digest).not.toBe(a.digest);
  });

  it("applies defaults down to each check and resolves relative paths against the policy folder", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tessera-policy-"));
    const text = CHECK.replace(
      "tools:",
      "defaults: { on_fail: hold, retry: { attempts: 2 } }\naudit: { path: ./audit.db }\ntools:",
    ).replace("              match:", "              retry: { on_error: hold }\n              match:");
    writeFileSync(join(dir, "p.yaml"), text);
    const p = await loadPolicy("p.yaml", { env: {}, cwd: dir });
    expect(p.baseDir).toBe(dir);
    expect(p.file).toBe("p.yaml");
    expect(p.sources.billing).toEqual({ kind: "sqlite", path: join(dir, "billing.db"), timeout_ms: 5000 });
    expect(p.audit).toEqual({ path: join(dir, "audit.db"), values: false });
    expect(p.defaults).toEqual({
      on_fail: "hold",
      retry: { attempts: 2, on_error: "block" },
      unlisted_tools: "allow",
      unlisted_tools_set: false, // the file does not set it: the default applies, and serve refuses unlisted tools
      undeclared_arguments: "refuse",
    });
    const check = p.tools.refund_order!.arguments.order_id!.ground.checks[0]!;
    expect(check.on_fail).toBe("hold");
    expect(check.retry).toEqual({ attempts: 2, on_error: "hold" });
  });

  it("fills the defaults of every source kind", () => {
    const text = `version: 1
sources:
  pg: { kind: postgres, url: "postgres://u@127.0.0.1/db" }
  my: { kind: mysql, url: "mysql://u@127.0.0.1/db", pool_size: 2 }
  api: { kind: http, base_url: "http://127.0.0.1:8080", headers: { Authorization: "Bearer \${T}" } }
  tools: { kind: mcp, command: node, args: [server.js], cwd: ./srv }
`;
    const p = parsePolicy(text, "p.yaml", { env: { T: "tok" }, baseDir: "/etc/tessera" });
    expect(p.sources).toEqual({
      pg: { kind: "postgres", url: "postgres://u@127.0.0.1/db", timeout_ms: 5000, pool_size: 4 },
      my: { kind: "mysql", url: "mysql://u@127.0.0.1/db", timeout_ms: 5000, pool_size: 2 },
      api: {
        kind: "http",
        base_url: "http://127.0.0.1:8080",
        headers: { Authorization: "Bearer tok" },
        not_found: "empty",
        max_bytes: 1048576,
        timeout_ms: 5000,
      },
      tools: { kind: "mcp", command: "node", args: ["server.js"], cwd: "/etc/tessera/srv", timeout_ms: 5000 },
    });
  });

  it("names a missing policy file", async () => {
    await expect(loadPolicy("/no/such/policy.yaml")).rejects.toThrow("no such policy file `/no/such/policy.yaml`");
  });

  it("loads the example policy with no warnings", async () => {
    const file = new URL("../../examples/refunds/policy.yaml", import.meta.url).pathname;
    const { policy, issues } = analyzePolicy(readFileSync(file, "utf8"), file, { env: {} });
    expect(issues).toEqual([]);
    expect(Object.keys(policy!.tools)).toEqual(["refund_order", "cancel_order"]);
  });
});

describe("undeclared_arguments", () => {
  const withRule = (tool: string, defaults = "") =>
    `${defaults}${CHECK.replace("  refund_order:\n    arguments:", `  refund_order:\n${tool}    arguments:`)}`;

  it("defaults to refuse, is set per tool, and a tool's own rule wins over defaults", () => {
    expect(parsePolicy(CHECK, "policy.yaml", { env: {}, baseDir: "/p" }).tools.refund_order!.undeclared_arguments).toBe(
      "refuse",
    );
    const own = parsePolicy(withRule("    undeclared_arguments: allow\n"), "policy.yaml", { env: {}, baseDir: "/p" });
    expect(own.tools.refund_order!.undeclared_arguments).toBe("allow");
    expect(own.defaults.undeclared_arguments).toBe("refuse");
    const byDefault = parsePolicy(withRule("", "defaults: { undeclared_arguments: allow }\n"), "policy.yaml", {
      env: {},
      baseDir: "/p",
    });
    expect(byDefault.tools.refund_order!.undeclared_arguments).toBe("allow");
    const overridden = parsePolicy(
      withRule("    undeclared_arguments: refuse\n", "defaults: { undeclared_arguments: allow }\n"),
      "policy.yaml",
      { env: {}, baseDir: "/p" },
    );
    expect(overridden.tools.refund_order!.undeclared_arguments).toBe("refuse");
  });

  it("refuses any other value with its line and path", () => {
    expect(firstError(withRule("    undeclared_arguments: ignore\n"))).toMatch(
      /^policy\.yaml:6: tools\.refund_order\.undeclared_arguments: expected `refuse` or `allow`, got string `ignore`/,
    );
  });

  it("is in the JSON Schema editors see, with its two values", () => {
    const asEditors = z.fromJSONSchema(policyJsonSchema() as never);
    const doc = (rule: unknown) => ({
      version: 1,
      sources: { billing: { kind: "sqlite", path: "./billing.db" } },
      tools: { t: { arguments: {}, undeclared_arguments: rule } },
      defaults: { undeclared_arguments: rule },
    });
    expect(asEditors.safeParse(doc("allow")).success).toBe(true);
    expect(asEditors.safeParse(doc("refuse")).success).toBe(true);
    expect(asEditors.safeParse(doc("maybe")).success).toBe(false);
  });
});

describe("policy JSON Schema", () => {
  it("is draft 2020-12, closed, and accepts the example policy's shape", async () => {
    const schema = policyJsonSchema();
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties as object)).toEqual([
      "version",
      "mode",
      "context",
      "sources",
      "defaults",
      "tools",
      "audit",
    ]);
    // what editors see accepts the example policy and rejects an unknown key, as the loader does
    const { parse } = await import("yaml");
    const example = parse(
      readFileSync(new URL("../../examples/refunds/policy.yaml", import.meta.url), "utf8"),
    ) as Record<string, unknown>;
    const asEditors = z.fromJSONSchema(schema as never);
    expect(asEditors.safeParse(example).success).toBe(true);
    expect(asEditors.safeParse({ ...example, extras: 1 }).success).toBe(false);
    expect(asEditors.safeParse(parse(CHECK.replace("{ column: status, value", "{ colum: status, value"))).success).toBe(
      false,
    );
  });
});

describe("placeholder syntax by adapter", () => {
  const pg = (query: string) => `version: 1
sources:
  pg: { kind: postgres, url: "postgres://u@127.0.0.1/db" }
  my: { kind: mysql, url: "mysql://u@127.0.0.1/db" }
tools:
  t:
    arguments:
      a:
        ground:
          checks:
            - { source: pg, query: ${JSON.stringify(query)}, match: [ { rows: gte, value: 0 } ] }
            - { source: my, query: ${JSON.stringify(query)}, match: [ { rows: gte, value: 0 } ] }
`;
  const issues = (q: string) =>
    analyzePolicy(pg(q), "p.yaml", { env: {} })
      .issues.filter((i) => i.severity === "error")
      .map((i) => `${i.path}: ${i.message}`);

  it("accepts %(name)s in both, and a Postgres JSON `?` operator", () => {
    expect(issues("SELECT 1 FROM t WHERE id = %(value)s AND note LIKE '50%'")).toEqual([]);
    expect(issues("SELECT 1 FROM t WHERE id = %(value)s AND doc ? 'k'")).toEqual([
      "tools.t.arguments.a.ground.checks[1].query: mysql queries bind by name as `%(name)s`; `?` is not supported",
    ]);
  });

  it("refuses $1, %(name)d and quoted placeholders", () => {
    expect(issues("SELECT 1 FROM t WHERE id = $1")).toEqual([
      "tools.t.arguments.a.ground.checks[0].query: postgres queries bind by name as `%(name)s`; `$1` is not supported",
    ]);
    expect(issues("SELECT 1 FROM t WHERE id = %(value)d")[0]).toBe(
      "tools.t.arguments.a.ground.checks[0].query: postgres placeholders are written `%(name)s`; got `%(value)d`",
    );
    expect(issues("SELECT 1 FROM t WHERE id = '%(value)s'")[0]).toBe(
      "tools.t.arguments.a.ground.checks[0].query: placeholder `%(value)s` is inside a quoted literal, so it is compared as text and never bound; remove the quotes",
    );
  });
});
