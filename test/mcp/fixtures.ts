// Claims and evidence for the MCP tests: supported and unsupported snippets, a shared fragment.
import type { Claim, EvidenceRecord } from "../../src/core/index.js";

const log = (id: string, line: number, text: string): EvidenceRecord => ({
  id,
  source: "ci",
  locator: {
    kind: "log-line",
    parts: [
      ["run", id.split("-")[1]!],
      ["line", String(line)],
    ],
  },
  text,
});

export const RUN_812 = log(
  "log-812-17",
  17,
  "src/billing/refund.ts(42,7): error TS2322: Type 'string' is not assignable to type 'number'.",
);
export const RUN_790 = log(
  "log-790-9",
  9,
  "src/billing/refund.ts(42,7): error TS2322: Type 'string' is not assignable to type 'number'.",
);

/** Four claims: two supported, one unsupported, one shared-fragment. */
export const CLAIMS: Claim[] = [
  { text: "error TS2322: Type 'string' is not assignable to type 'number'", support: [RUN_812] },
  { text: "error TS2322 in src/billing/refund.ts and the database was deleted", support: [RUN_812] },
  { text: `Recurring failure: "error TS2322" appears in 'log-812-17' and 'log-790-9'.`, support: [RUN_812, RUN_790] },
  {
    text: "up to $5",
    support: [
      { id: "t-1", source: "tickets", locator: { kind: "ticket", parts: [["id", "1"]] }, text: "refunds up to $50" },
    ],
  },
];
