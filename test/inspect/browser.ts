/**
 * Headless Chromium for the inspector's browser tests, through playwright-core driving the
 * installed browser (Debian's `chromium`, or CHROMIUM_PATH). Without a browser the tests skip on a
 * developer's machine and fail in CI (CI=true), where .ci/run installs it.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';

export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

/** Headless, and nothing that reaches the network on its own (the tests and the bench share it). */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
/** Where the step screenshots go (gitignored): `.tmp/inspect/`. */
export const ARTIFACTS = resolve(import.meta.dirname, '../../.tmp/inspect');

/**
 * Why the browser tests cannot run here, or undefined when they can. In CI (`CI=true`, or
 * `ADCP_REQUIRE_BROWSER=1` as .ci/run sets) a missing browser throws: a failure, never a skip.
 */
export function browserMissing(env: NodeJS.ProcessEnv = process.env, path = CHROMIUM): string | undefined {
  if (existsSync(path)) return undefined;
  const why = `no Chromium at ${path} (apt-get install -y chromium, or set CHROMIUM_PATH)`;
  if (env['CI'] === 'true' || env['ADCP_REQUIRE_BROWSER'] === '1')
    throw new Error(`the browser tests must run in CI: ${why}`);
  return why;
}

export interface OpenBrowser {
  /** One context on a fresh profile directory (removed by `close()`). */
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<OpenBrowser> {
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), 'adcp-inspect-chromium-'));
  // A fresh --user-data-dir per run: Playwright takes it as the persistent context's directory.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    viewport: { width: 1280, height: 900 },
    args: CHROMIUM_ARGS,
    timeout: 60_000,
  });
  return {
    context,
    async close() {
      await context.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Saves a screenshot of the step as `.tmp/inspect/{name}.png`: the full page, or the window only
 * (`fullPage: false`) for a page too long to render whole in time (a storyboard report).
 */
export async function shot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: options.fullPage ?? true });
}
