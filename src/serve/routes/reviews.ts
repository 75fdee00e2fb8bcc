/**
 * `GET /v1/reviews/<id>`: a review of the queue exactly as `tessera review show <id> --json` prints it.
 * @module
 */
import { jsonOut } from "../../platform/format.js";
import { reviewJson } from "../../review/json.js";
import { HttpError } from "../errors.js";
import type { Reply, ServeParts } from "../types.js";

/** A review id as the queue makes them (`rv_` and 12 hex digits). */
export const REVIEW_ID = /^rv_[0-9a-f]{12}$/;

/** Answer one review's state. */
export async function reviewRoute(parts: ServeParts, id: string): Promise<Reply> {
  if (!REVIEW_ID.test(id))
    throw new HttpError("review_not_found", "id: no such review (ids look like `rv_` and 12 hex digits)");
  let record;
  try {
    record = await parts.reviews.get(id, parts.clock());
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new HttpError("store_unavailable", `(store): the review queue could not be read: ${message}`, {
      "retry-after": "1",
    });
  }
  if (record === null) throw new HttpError("review_not_found", `id: no review \`${id}\``);
  return { status: 200, body: jsonOut(reviewJson(record)) };
}
