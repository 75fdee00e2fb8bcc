// A webhook receiver on 127.0.0.1 for the notification tests: it records what it accepted, answers
// each try as scripted (a status, or never), and says when a number of events have arrived.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A receiver on 127.0.0.1: what it accepted, and the answers it gives (200 unless told). */
export class Receiver {
  readonly accepted: unknown[] = [];
  tries = 0;
  private readonly waiters: { count: number; wake: () => void }[] = [];
  /** Status codes to answer the next tries with, in order; `hang` never answers. */
  readonly script: (number | "hang")[] = [];
  readonly server: Server;
  private readonly hanging: IncomingMessage[] = [];

  constructor() {
    this.server = createServer((req, res) => {
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (c: string) => (body += c));
      req.on("end", () => {
        this.tries += 1;
        const answer = this.script.shift() ?? 200;
        if (answer === "hang") {
          this.hanging.push(req);
          return;
        }
        if (answer === 200) {
          this.accepted.push(JSON.parse(body) as unknown);
          for (const w of this.waiters.filter((w) => this.accepted.length >= w.count)) w.wake();
        }
        res.writeHead(answer).end();
      });
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  /** Resolves once `count` events were accepted. */
  received(count: number): Promise<void> {
    if (this.accepted.length >= count) return Promise.resolve();
    return new Promise((wake) => this.waiters.push({ count, wake }));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
