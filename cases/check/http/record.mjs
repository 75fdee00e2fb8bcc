#!/usr/bin/env node
// Re-record cases/check/http/*.recorded.json: a real node:http refund API on 127.0.0.1 (random
// port), queried through the real HTTP adapter. Run `npm run build && node cases/check/http/record.mjs`.
import http from "node:http";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { recordCases } from "../record-lib.mjs";

const ORDERS = [
  { order_id: 1001, customer_id: "c-1", status: "delivered", amount_cents: 1500 },
  { order_id: 1002, customer_id: "c-2", status: "refunded", amount_cents: 900 },
  { order_id: 1003, customer_id: "c-1", status: "delivered", amount_cents: 2500 },
];
const REFUNDS = [{ refund_id: "r-77", order_id: 1002, amount_cents: 900 }];
const LEDGER_DOWN = new Set(["1003"]); // the ledger fails for this order: the recorded error path

function json(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  const parts = url.pathname.split("/").slice(1);
  if (parts[0] === "orders" && parts.length === 2) {
    const o = ORDERS.find((x) => String(x.order_id) === decodeURIComponent(parts[1]));
    return o === undefined ? json(res, 404, { error: "no such order" }) : json(res, 200, o);
  }
  if (parts[0] === "refunds" && parts.length === 1) {
    const id = url.searchParams.get("order_id") ?? "";
    if (LEDGER_DOWN.has(id)) return json(res, 503, { error: "ledger unavailable" });
    return json(res, 200, { items: REFUNDS.filter((r) => String(r.order_id) === id) });
  }
  return json(res, 404, { error: "no such route" });
});

await new Promise((r) => server.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${server.address().port}`;
try {
  const files = await recordCases(dirname(fileURLToPath(import.meta.url)), { "orders-api": { base_url: base }, "refund-ledger": { base_url: base } });
  for (const f of files) process.stdout.write(`wrote ${f}\n`);
} finally {
  server.closeAllConnections();
  server.close();
}
