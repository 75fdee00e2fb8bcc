// Debian's Chromium driven by playwright-core (never a browser download): headless, sandbox off
// (containers), no background traffic, a fresh profile per launch. Without /usr/bin/chromium the
// browser tests skip, except under TESSERA_REQUIRE_LIVE=1, where they fail.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
export const HAVE_CHROMIUM = existsSync(CHROMIUM);

/** A fresh headless Chromium profile; `close` removes it. */
export async function launchBrowser(): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), "tessera-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** A PNG's size from its IHDR chunk, after checking the signature; throws for anything else. */
export function pngSize(bytes: Buffer): { width: number; height: number } {
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  if (bytes.length < 24 || !bytes.subarray(0, 8).equals(signature)) throw new Error("not a PNG: wrong signature");
  if (bytes.subarray(12, 16).toString("latin1") !== "IHDR") throw new Error("not a PNG: no IHDR chunk first");
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}
