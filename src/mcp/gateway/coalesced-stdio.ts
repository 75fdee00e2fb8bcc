/**
 * The upstream's stdio transport, with the messages sent during one callback of the event loop (and
 * its promise jobs) written to the upstream's stdin in one system call: with 32 calls in flight a write per message was the largest
 * cost of the gateway after the audit log (adr/0114).
 * @module
 */
import type { ChildProcess } from "node:child_process";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** `StdioClientTransport`, corking the child's stdin from a callback's first send until that callback's run is over. */
export class CoalescedStdioClientTransport extends StdioClientTransport {
  private corked = false;

  override async send(message: JSONRPCMessage): Promise<void> {
    // the SDK (pinned) keeps the child in `_process`; without it every message is its own write, as in the SDK
    const stdin = (this as unknown as { _process?: ChildProcess })._process?.stdin;
    if (stdin && !this.corked && stdin.writable) {
      this.corked = true;
      stdin.cork();
      process.nextTick(() => {
        this.corked = false;
        stdin.uncork();
      });
    }
    return super.send(message);
  }
}
