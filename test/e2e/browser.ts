import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.SMSGW_CHROMIUM || '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Requests the page tried to send off this machine (we abort them). */
  blocked: string[];
  /** Uncaught page errors and console errors. */
  errors: string[];
  close(): Promise<void>;
}

/** Installs Debian's Chromium with apt-get when it is missing and we may (root); openBrowser reports the rest. */
export function ensureChromium(): void {
  if (existsSync(CHROMIUM) || CHROMIUM !== '/usr/bin/chromium' || process.getuid?.() !== 0) return;
  console.log('    (installing Debian chromium with apt-get: about a minute)');
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'ignore' });
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'chromium'], {
    stdio: 'ignore',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
}

/** Headless Debian Chromium with a fresh profile; every request not to 127.0.0.1 is aborted and recorded. */
export async function openBrowser(): Promise<Browser> {
  ensureChromium();
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: sudo apt-get install -y chromium`);
  const profile = mkdtempSync(join(tmpdir(), 'smsgw-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 800 },
    locale: 'en-US',
  });
  const blocked: string[] = [];
  const errors: string[] = [];
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === '127.0.0.1' || url.protocol === 'data:') return route.continue();
    blocked.push(url.href);
    return route.abort();
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  // the console only says "Failed to load resource"; name the URL
  page.on('response', (r) => {
    if (r.status() >= 400) errors.push(`HTTP ${r.status()} ${r.request().method()} ${r.url()}`);
  });
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  return {
    context,
    page,
    blocked,
    errors,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
