// A real HTTP server on 127.0.0.1 for the HTTP source tests: an orders API, an echo route for the
// injection properties, and one route per failure.
import http from "node:http";
import net from "node:net";

export interface Order {
  readonly order_id: number;
  readonly customer_id: string;
  readonly status: string;
  readonly amount_cents: number;
}

export interface TestServer {
  readonly port: number;
  readonly base: string;
  /** Requests seen, as raw request targets. */
  readonly seen: string[];
  close(): Promise<void>;
}

async function listen(server: http.Server | net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as net.AddressInfo).port;
}

function closer(server: http.Server | net.Server, sockets: Set<net.Socket>): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
}

function track(server: http.Server | net.Server): Set<net.Socket> {
  const sockets = new Set<net.Socket>();
  server.on("connection", (s: net.Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  return sockets;
}

/** Start the orders API; `orders` is the dataset served. `otherOrigin` is where /redirect-other points. */
export async function startOrdersServer(
  orders: readonly Order[],
  otherOrigin = "http://localhost:1",
): Promise<TestServer> {
  const seen: string[] = [];
  const byId = new Map(orders.map((o) => [String(o.order_id), o]));
  const json = (res: http.ServerResponse, status: number, body: unknown): void => {
    const text = JSON.stringify(body);
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
    res.end(text);
  };
  const server = http.createServer((req, res) => {
    const raw = req.url ?? "";
    seen.push(raw);
    const url = new URL(raw, "http://127.0.0.1");
    const parts = url.pathname.split("/").slice(1);
    const [head, second] = parts;
    if (head === "orders" && parts.length === 2) {
      const o = byId.get(decodeURIComponent(second ?? ""));
      return o === undefined ? json(res, 404, { error: "not found" }) : json(res, 200, o);
    }
    if (head === "refunds" && parts.length === 1) {
      const id = url.searchParams.get("order_id");
      return json(res, 200, {
        items: orders
          .filter((o) => String(o.order_id) === id && o.status === "refunded")
          .map((o) => ({ order_id: o.order_id })),
      });
    }
    if (head === "echo") {
      return json(res, 200, {
        target: raw,
        host: req.headers.host ?? null,
        keys: [...url.searchParams.keys()].join("&"),
        segments: parts.length,
        method: req.method,
      });
    }
    if (head === "auth") {
      return req.headers.authorization === "Bearer s3cret-token"
        ? json(res, 200, { ok: 1 })
        : json(res, 401, { error: "no" });
    }
    if (head === "slow") return; // never answers
    if (head === "status") {
      res.writeHead(Number(second));
      return res.end();
    }
    if (head === "text") {
      res.writeHead(200, { "content-type": "text/plain" });
      return res.end("hello");
    }
    if (head === "bad-json") {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end("{not json");
    }
    if (head === "bad-utf8") {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(Buffer.from([0x22, 0xff, 0xfe, 0x22]));
    }
    if (head === "scalar") return json(res, 200, 42);
    if (head === "mixed") return json(res, 200, [{ a: 1 }, 2]);
    if (head === "big") {
      // chunked, no content-length: the cap must hold while streaming
      res.writeHead(200, { "content-type": "application/json" });
      res.write("[");
      const chunk = JSON.stringify({ pad: "x".repeat(1000) });
      for (let i = 0; i < 3000; i++) res.write((i ? "," : "") + chunk);
      return res.end("]");
    }
    if (head === "redirect-same") {
      res.writeHead(302, { location: "/orders/1001" });
      return res.end();
    }
    if (head === "redirect-other") {
      res.writeHead(302, { location: `${otherOrigin}/orders/1001` });
      return res.end();
    }
    if (head === "redirect-loop") {
      res.writeHead(302, { location: "/redirect-loop" });
      return res.end();
    }
    if (head === "nested") return json(res, 200, { data: { items: orders.slice(0, 2) } });
    return json(res, 404, { error: "no route" });
  });
  server.keepAliveTimeout = 1000;
  const sockets = track(server);
  const port = await listen(server);
  return { port, base: `http://127.0.0.1:${port}`, seen, close: closer(server, sockets) };
}

/** A TCP server that answers any request with bytes that are not HTTP. */
export async function startGarbageHttp(): Promise<TestServer> {
  const server = net.createServer((s) => {
    s.on("error", () => undefined);
    s.on("data", () => s.end("SPLAT \u0000\u0001 not http at all\r\n\r\n"));
  });
  const sockets = track(server);
  const port = await listen(server);
  return { port, base: `http://127.0.0.1:${port}`, seen: [], close: closer(server, sockets) };
}
