// Property: an approval is used by a call iff the call's arguments are canonically equal to the
// approved ones (same tool and policy) — any changed, added or removed value is grounded afresh.
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, expect, it } from "vitest";
import { canonicalJson } from "../../src/core/index.js";
import { digestOf } from "../../src/platform/digest.js";
import { openSqliteReviewStore } from "../../src/review/sqlite.js";
import { tempDir } from "./harness.js";

const { dir, cleanup } = tempDir("gw-pbt");
const store = openSqliteReviewStore(join(dir, "store.db"));
afterAll(async () => {
  await store.close();
  cleanup();
});

const scalar = fc.oneof(
  fc.integer({ min: -3, max: 3 }),
  fc.constantFrom("a", "b", "A", "a ", ""),
  fc.boolean(),
  fc.constant(null),
);
const args = fc.dictionary(
  fc.constantFrom("order_id", "amount", "note", "to"),
  fc.oneof(scalar, fc.array(scalar, { maxLength: 2 })),
  { maxKeys: 3 },
);

/** The approved arguments and a later call: the same keys reordered, one value changed or added, or unrelated. */
const pair = args.chain((a) =>
  fc.tuple(
    fc.constant(a),
    fc.oneof(
      fc.constant(Object.fromEntries(Object.entries(a).reverse())),
      fc.tuple(fc.constantFrom("order_id", "amount", "note", "to"), scalar).map(([k, v]) => ({ ...a, [k]: v })),
      args,
    ),
  ),
);

it("an approval binds to the canonical arguments", async () => {
  let round = 0;
  let equal = 0;
  await fc.assert(
    fc.asyncProperty(pair, async ([approved, called]) => {
      if (canonicalJson(approved) === canonicalJson(called)) equal += 1;
      const policy_digest = `sha256:round-${++round}`; // a fresh key space per run
      const key = {
        tool: "refund_order",
        arguments_digest: digestOf(approved),
        policy_digest,
        context_digest: "sha256:ctx",
      };
      const { review } = await store.hold(
        { ...key, arguments: approved, reasons: [], approval_ttl_ms: 1_000, review_ttl_ms: 60_000 },
        0,
      );
      await store.approve(review.id, "pbt", 0);
      const used = await store.consume(
        { tool: "refund_order", arguments_digest: digestOf(called), policy_digest, context_digest: "sha256:ctx" },
        1,
      );
      expect(used !== null).toBe(canonicalJson(approved) === canonicalJson(called));
    }),
    { numRuns: 150 },
  );
  expect(equal).toBeGreaterThan(20); // both sides of the property were exercised
});
