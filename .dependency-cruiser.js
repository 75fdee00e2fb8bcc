/**
 * The dependency fence of adr/0002. Every rule says why it exists and how to fix a violation.
 * Decided in adr/0002-pure-core-and-fence.md; `npm run fence` runs it and `npm test` includes it.
 * test/fence.test.ts proves each rule can fail, against test/fixtures/fence/.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: "core-is-pure",
      severity: "error",
      comment:
        "src/core holds every verdict and must stay pure and portable: it imports only src/core. " +
        "Move I/O, hashing or validation libraries to the layer that needs them (adr/0002).",
      from: { path: "^src/core/" },
      to: { pathNot: "^src/core/" },
    },
    {
      name: "core-no-node-builtins",
      severity: "error",
      comment:
        "src/core must not use Node built-ins (node:crypto, node:fs, ...): digests and I/O live outside the core (adr/0002).",
      from: { path: "^src/core/" },
      to: { dependencyTypes: ["core"] },
    },
    {
      name: "mcp-sdk-only-in-mcp",
      severity: "error",
      comment:
        "MCP is an opt-in extra: only src/mcp/ and src/sources/mcp.ts may import @modelcontextprotocol/sdk, " +
        "so the package root never loads it (specs/README.md). Put protocol code in src/mcp/.",
      from: { path: "^src/", pathNot: "^src/(mcp/|sources/mcp\\.ts$)" },
      to: { path: "node_modules/@modelcontextprotocol/sdk" },
    },
    {
      name: "answers-actions-offline",
      severity: "error",
      comment:
        "answers/ and actions/ turn stored evidence into verdicts and drafts; they never reach a Source, " +
        "the MCP layer or the network. Pass data in from the CLI or MCP layer instead (adr/0002).",
      from: { path: "^src/(answers|actions)/" },
      to: { path: "^(src/(sources|mcp)/|http$|net$|node:http$|node:net$|node_modules/@modelcontextprotocol/sdk)" },
    },
    {
      name: "answers-actions-no-network-builtins",
      severity: "error",
      comment: "answers/ and actions/ stay offline: no node:http, node:https or node:net (adr/0002).",
      from: { path: "^src/(answers|actions)/" },
      to: { dependencyTypes: ["core"], path: "^(node:)?(http|https|net|http2|dgram|tls)$" },
    },
    {
      name: "checks-declare-not-import-sources",
      severity: "error",
      comment:
        "src/checks declares the Source interface and adapters in src/sources implement it; the engine never " +
        "imports an adapter (adr/0002). Wire concrete adapters in src/cli or src/sources/registry.ts.",
      from: { path: "^src/checks/" },
      to: { path: "^src/sources/" },
    },
    {
      name: "cli-only-from-cli",
      severity: "error",
      comment:
        "src/cli is the outermost layer: nothing outside it imports it, so the library and the MCP layer load " +
        "without the CLI. Put what both need in src/platform/ (output helpers, the version) or src/gate.ts.",
      from: { path: "^src/", pathNot: "^src/cli/" },
      to: { path: "^src/cli/" },
    },
    {
      name: "sources-no-audit",
      severity: "error",
      comment:
        "Source adapters answer requests; they never write the audit log. The composition root src/gate.ts " +
        "wires the audit log around the engine, so every decision is recorded once, in one place.",
      from: { path: "^src/sources/" },
      to: { path: "^src/audit/" },
    },
    {
      name: "frameworks-only-in-adapters",
      severity: "error",
      comment:
        "Agent frameworks (AI SDK, OpenAI Agents, LangChain) are optional peers: only src/adapters/ may import them, " +
        "each behind its own subpath, so the package root never loads one (adr/0086). Put framework glue in src/adapters/.",
      from: { path: "^src/", pathNot: "^src/adapters/" },
      to: { path: "node_modules/(ai|@ai-sdk|@openai/agents[^/]*|@openai|langchain|@langchain)/" },
    },
    {
      name: "adapters-over-the-gate",
      severity: "error",
      comment:
        "An adapter is a thin layer over the Gate it is given: no verdict logic (src/core), no Source or MCP code. " +
        "Decide in the engine and pass a Gate in (adr/0086).",
      from: { path: "^src/adapters/" },
      to: { path: "^src/(core|sources|mcp)/" },
    },
    {
      name: "serve-over-the-gate",
      severity: "error",
      comment:
        "The HTTP service (src/serve/) decides only through the Gate of src/gate.ts and the review binding: no verdict " +
        "logic (src/core), no Source adapter, no MCP code. Decide in the engine; open Sources through gate.ts (adr/0123).",
      from: { path: "^src/serve/" },
      to: { path: "^src/(core|sources|mcp|hooks|adapters|replay)/" },
    },
    {
      name: "serve-only-from-cli",
      severity: "error",
      comment:
        "src/serve/ sits with the protocol servers, under the CLI only: the library, the MCP layer and the adapters " +
        "load without an HTTP server. Put what both need in src/review/, src/audit/ or src/platform/ (adr/0123).",
      from: { path: "^src/", pathNot: "^src/(cli|serve)/" },
      to: { path: "^src/serve/" },
    },
    {
      name: "no-circular",
      severity: "error",
      comment: "Circular imports hide the layering and break lazy loading. Move the shared piece down a layer.",
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".js", ".json"],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
