/**
 * The SMS panel (the package's sidebar tab) in Chromium on a real Node-RED with adminAuth: a user who may only
 * read sees the open question with its holder masked, no Cancel, no Test connection, and no full number anywhere
 * in the page or in the panel's answers; the route refuses that user's Cancel too. A user who may change the
 * configuration sees Cancel and Test connection, may reveal the numbers, and Cancel closes the question. The
 * Spend charts draw the real sends against the emulator (bars per hour and per day, the limit and warning lines).
 * An SMS sent to the emulator's inbound queue shows in the Inbound list, its sender masked for the read-only user
 * and in full after reveal, its markup as text.
 * With SMSGW_SCREENSHOTS=1 (npm run screenshots) the picture goes to docs/images/panel.png.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { deployFlows } from '../../scripts/lib/nodered';
import { ROOT } from '../../scripts/lib/package';
import { openBrowser, type Browser } from './browser';
import { nodeRedDir, nodeRedVersion, outDir, screenshots, startStack, type Stack } from './stack';

const A = '+491701110001';
const B = '+491701110002';
/** The digits of A that no read-only answer may hold (masked it keeps +4917 and the last two). */
const A_HIDDEN = '1701110001';
/** A sender of an inbound message (not on call): its digits likewise. */
const C = '+491701110003';
const C_HIDDEN = '1701110003';
/** Markup in an SMS: the panel shows it as text, never as HTML. */
const INBOUND_TEXT = '<img src=x data-smsgw-injected="1"> Freezer door open';
const PASSWORD = 'login-pass-1';
const USERS: Record<string, string | string[]> = {
  reader: 'read',
  // the editor reads every part (nodes, settings, flows); this user may also deploy and change configurations
  writer: ['read', 'flows.write', 'smsgw-config.write'],
};

function bcryptHash(text: string): string {
  const load = createRequire(require.resolve('bcryptjs', { paths: [nodeRedDir, ROOT] }));
  return (load('bcryptjs') as { hashSync(s: string, rounds: number): string }).hashSync(text, 8);
}

function flows(url: string): unknown[] {
  return [
    { id: 'tab', type: 'tab', label: 'Panel' },
    {
      id: 'cfg',
      type: 'smsgw-config',
      name: 'Alarm gateway',
      baseUrl: url,
      service: 'gateway',
      transport: 'soap11',
      outbox: true,
      // The Spend chart's limits: the rolling hour 10 (warning at 5), the day 20 (warning at 10).
      budgetHour: 10,
      budgetDay: 20,
      budgetWarn: 50,
      budgetReserve: 2,
      credentials: { user: 'demo', password: 'demo-password' },
    },
    {
      id: 'go',
      z: 'tab',
      type: 'inject',
      once: true,
      onceDelay: 0.5,
      payload: 'Freezer too warm',
      payloadType: 'str',
      topic: 'freezer',
      props: [{ p: 'payload' }, { p: 'topic', vt: 'str' }],
      x: 120,
      y: 80,
      wires: [['ask']],
    },
    {
      id: 'ask',
      z: 'tab',
      type: 'smsgw-ask',
      gateway: 'cfg',
      question: 'payload',
      questionType: 'msg',
      numbers: `${A}, ${B}`,
      numbersType: 'str',
      wait: 10,
      waitUnit: 'min',
      rounds: 1,
      ack: '1',
      pass: '2',
      tell: 'none',
      interval: 1,
      x: 320,
      y: 80,
      wires: [[], []],
    },
    {
      id: 'report',
      z: 'tab',
      type: 'inject',
      once: true,
      onceDelay: 0.5,
      payload: 'Daily report: all fine',
      payloadType: 'str',
      topic: 'report',
      props: [{ p: 'payload' }, { p: 'topic', vt: 'str' }],
      x: 120,
      y: 160,
      wires: [['send']],
    },
    {
      id: 'send',
      z: 'tab',
      type: 'smsgw-send-sms',
      gateway: 'cfg',
      operation: 'SendSMS',
      recipient: B,
      recipientType: 'str',
      text: 'payload',
      textType: 'msg',
      caption: 'topic',
      captionType: 'msg',
      x: 320,
      y: 160,
      wires: [[]],
    },
  ];
}

/** The units each bar of a Spend chart shows, and its limit and warning lines. */
async function chartOf(
  page: Page,
  name: 'hours' | 'days',
): Promise<{ bars: number[]; limit: number | null; warn: number | null; heights: number[] }> {
  // No named functions inside: the page runs the code as written, without the test runner's helpers.
  const got = await page.locator(`[data-smsgw="chart-${name}"] svg`).evaluate((svg) => ({
    bars: [...svg.querySelectorAll('rect.smsgw-spend-bar')].map((b) => Number(b.getAttribute('data-units'))),
    heights: [...svg.querySelectorAll('rect.smsgw-spend-bar')].map((b) => Number(b.getAttribute('height'))),
    limit: svg.querySelector('line.smsgw-spend-limit')?.getAttribute('data-value') ?? null,
    warn: svg.querySelector('line.smsgw-spend-warn')?.getAttribute('data-value') ?? null,
  }));
  return {
    ...got,
    limit: got.limit === null ? null : Number(got.limit),
    warn: got.warn === null ? null : Number(got.warn),
  };
}

describe(`the SMS panel in Chromium on Node-RED ${nodeRedVersion}`, function () {
  this.timeout(240_000);
  let stack: Stack;
  let browser: Browser | undefined;
  const tokens: Record<string, string> = {};

  before(async function () {
    const hash = bcryptHash(PASSWORD);
    stack = await startStack('panel', undefined, {
      adminAuth: {
        type: 'credentials',
        users: Object.entries(USERS).map(([username, permissions]) => ({
          username,
          password: hash,
          permissions,
        })),
      },
    });
    for (const username of Object.keys(USERS)) {
      const res = await fetch(`${stack.nodeRed.url}/auth/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          client_id: 'node-red-editor',
          grant_type: 'password',
          scope: '',
          username,
          password: PASSWORD,
        }),
      });
      assert.equal(res.status, 200, `login of ${username}`);
      tokens[username] = ((await res.json()) as { access_token: string }).access_token;
    }
    await deployFlows(stack.nodeRed.url, flows(stack.emulator.url), {
      Authorization: `Bearer ${tokens.writer}`,
    });
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && browser) {
      console.log(
        `    page errors: ${JSON.stringify(browser.errors)}, blocked: ${JSON.stringify(browser.blocked)}`,
      );
      await browser.page.screenshot({ path: join(outDir, `panel-failed.png`) }).catch(() => undefined);
    }
    await browser?.close();
    browser = undefined;
    ownErrors.length = 0;
  });
  after(async () => {
    await stack?.stop();
  });

  /** Uncaught errors of the page with their stacks (the browser helper keeps only the message). */
  const ownErrors: string[] = [];
  /** Frames of Node-RED's own editor code (Node-RED 5.0's info tips throw once in a while when shown). */
  const editorOnly = (stack: string): boolean => {
    const frames = [...stack.matchAll(/^\s+at .*$/gm)].map((f) => f[0]);
    return frames.length > 0 && frames.every((f) => /\/red\/red(\.min)?\.js|\/vendor\//.test(f));
  };
  /**
   * Page errors, the blocked requests off this machine (Node-RED's palette catalogue) aside, and those thrown
   * wholly inside Node-RED's editor code (not the panel's).
   */
  const pageErrors = (): string[] => [
    ...(browser?.errors ?? []).filter(
      (e) =>
        e.startsWith('HTTP ') ||
        (!e.startsWith('pageerror:') && !/Failed to load resource|ERR_FAILED|net::/.test(e)),
    ),
    ...ownErrors.filter((e) => !editorOnly(e)),
  ];

  /** The editor logged in as `user` (its token where the editor keeps it), the panel shown, a question listed. */
  async function openPanel(user: string, answers?: string[]): Promise<Page> {
    browser = await openBrowser();
    const { page, context } = browser;
    page.on('pageerror', (e) => ownErrors.push(String(e.stack ?? e.message)));
    page.on('requestfailed', (r) => browser?.errors.push(`failed: ${r.url()} ${r.failure()?.errorText}`));
    await context.addInitScript((token) => {
      localStorage.setItem(
        'auth-tokens',
        JSON.stringify({ access_token: token, expires_in: 3600, token_type: 'Bearer' }),
      );
    }, tokens[user]!);
    if (answers)
      page.on('response', (r) => {
        if (r.url().includes('/smsgw/'))
          void r.text().then(
            (t) => answers.push(t),
            () => undefined,
          );
      });
    await page.goto(`${stack.nodeRed.url}/`);
    await page.waitForSelector('#red-ui-palette-container .red-ui-palette-node', { timeout: 60000 });
    await page.evaluate(() =>
      (window as unknown as { RED: { sidebar: { show(id: string): void } } }).RED.sidebar.show('smsgw-panel'),
    );
    await page.waitForSelector('[data-section="questions"] [data-smsgw="question"] [data-smsgw="holder"]', {
      timeout: 30000,
    });
    await page
      .waitForSelector('[data-section="health"] [data-state="loaded"], [data-section="health"][data-state]', {
        state: 'attached',
      })
      .catch(() => undefined);
    await page.waitForSelector('[data-section="health"] [data-smsgw="outbox"]', { timeout: 30000 });
    // Both SMS (the question's first and the report) counted: the hours chart's bars add up to 2.
    await page.waitForFunction(
      () =>
        [...document.querySelectorAll('[data-smsgw="chart-hours"] rect.smsgw-spend-bar')]
          .map((b) => Number(b.getAttribute('data-units')))
          .reduce((a, b) => a + b, 0) === 2,
      undefined,
      { timeout: 30000 },
    );
    return page;
  }

  it('a read-only user: the question with its holder masked, no Cancel, no Test connection, no full number anywhere', async () => {
    const answers: string[] = [];
    const sent = await fetch(`${stack.emulator.url}/_emulator/inbound`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ from: C, text: INBOUND_TEXT }),
    });
    assert.ok(sent.ok, `inbound: ${sent.status}`);
    const page = await openPanel('reader', answers);
    // The reader polls every second (the ask node's interval): the message comes with a live note.
    const inbound = page.locator('[data-section="inbound"] [data-smsgw="inbound"]');
    await inbound.first().waitFor({ timeout: 30000 });
    assert.equal(await inbound.count(), 1);
    assert.equal(await inbound.locator('[data-smsgw="from"]').textContent(), '+4917******03');
    assert.equal(await inbound.locator('[data-smsgw="text"]').textContent(), INBOUND_TEXT);
    assert.equal(await page.locator('[data-smsgw-injected]').count(), 0);
    const holder = await page.locator('[data-smsgw="holder"]').first().textContent();
    assert.match(String(holder), /step 1 of 2 · \+4917\*{6}01/);
    assert.equal(await page.locator('[data-smsgw="cancel"]').count(), 0);
    assert.equal(await page.locator('[data-smsgw="test"]').count(), 0);
    assert.equal(await page.locator('[data-smsgw="reveal"]').isVisible(), false);
    // Spend from the two real sends against the emulator: 24 hourly bars, 30 daily, the limit and warning lines.
    const hours = await chartOf(page, 'hours');
    assert.equal(hours.bars.length, 24);
    assert.equal(
      hours.bars.reduce((a, b) => a + b, 0),
      2,
    );
    assert.deepEqual([hours.limit, hours.warn], [10, 5]);
    // A bar with units is drawn, one without is flat.
    assert.ok(hours.heights.some((h, i) => hours.bars[i]! > 0 && h > 0));
    assert.ok(hours.heights.every((h, i) => hours.bars[i]! > 0 || h === 0));
    const days = await chartOf(page, 'days');
    assert.equal(days.bars.length, 30);
    assert.equal(
      days.bars.reduce((a, b) => a + b, 0),
      2,
    );
    assert.deepEqual([days.limit, days.warn], [20, 10]);
    assert.match(String(await page.locator('[data-smsgw="spend-day"]').textContent()), /2 of 20/);
    assert.match(String(await page.locator('[data-smsgw="spend-hour"]').textContent()), /2 of 10/);
    assert.match(String(await page.locator('[data-smsgw="spend-reserve"]').textContent()), /2 of 2/);
    assert.match(
      String(await page.locator('[data-section="questions"] .smsgw-panel-code').first().textContent()),
      /^a$/,
    );
    // The whole panel (every text and attribute) and every answer of the package's routes the page received. (The
    // flow itself holds the ask node's numbers: a user who may read flows reads them there, as in any node.)
    const html = await page.locator('.smsgw-panel').evaluate((e) => e.outerHTML);
    assert.ok(!html.includes(A_HIDDEN) && !html.includes(C_HIDDEN));
    assert.ok(answers.length >= 2);
    assert.ok(answers.some((a) => a.includes('Freezer door open')));
    for (const a of answers)
      assert.ok(
        !a.includes(A_HIDDEN) && !a.includes(C_HIDDEN),
        `a full number in an answer: ${a.slice(0, 200)}`,
      );
    // Asking to reveal changes nothing for this user; the route refuses Cancel.
    const revealed = await fetch(`${stack.nodeRed.url}/smsgw/panel/cfg/questions?reveal=1`, {
      headers: { Authorization: `Bearer ${tokens.reader}` },
    });
    assert.equal(revealed.status, 200);
    assert.ok(!(await revealed.text()).includes(A_HIDDEN));
    const inboundRevealed = await fetch(`${stack.nodeRed.url}/smsgw/panel/cfg/inbound?reveal=1`, {
      headers: { Authorization: `Bearer ${tokens.reader}` },
    });
    assert.equal(inboundRevealed.status, 200);
    const inboundText = await inboundRevealed.text();
    assert.ok(inboundText.includes('+4917******03') && !inboundText.includes(C_HIDDEN), inboundText);
    const id = await page.locator('[data-smsgw="question"]').first().getAttribute('data-id');
    const cancel = await fetch(`${stack.nodeRed.url}/smsgw/panel/cfg/questions/cancel`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${tokens.reader}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ id }),
    });
    assert.equal(cancel.status, 401);
    assert.equal((await fetch(`${stack.nodeRed.url}/smsgw/panel/cfg/health`)).status, 401);
    assert.deepEqual(pageErrors(), []);
  });

  it('a user who may change the configuration: reveal shows the number, Test connection answers, Cancel closes the question', async () => {
    const page = await openPanel('writer');
    await page.locator('[data-smsgw="reveal"]').check();
    await page.waitForFunction(
      (n) => document.querySelector('[data-smsgw="holder"]')?.textContent?.includes(n) === true,
      A,
      { timeout: 20000 },
    );
    await page.waitForFunction(
      (n) => document.querySelector('[data-smsgw="inbound"] [data-smsgw="from"]')?.textContent === n,
      C,
      { timeout: 20000 },
    );
    const full = await fetch(`${stack.nodeRed.url}/smsgw/panel/cfg/inbound?reveal=1`, {
      headers: { Authorization: `Bearer ${tokens.writer}` },
    });
    assert.ok((await full.text()).includes(C));
    await page.click('[data-smsgw="test"]');
    await page.waitForFunction(
      () =>
        /Connected: balance/.test(document.querySelector('[data-smsgw="test-result"]')?.textContent ?? ''),
      undefined,
      { timeout: 30000 },
    );
    if (screenshots)
      await page.locator('.smsgw-panel').screenshot({ path: join(ROOT, 'docs', 'images', 'panel.png') });
    await page.click('[data-smsgw="cancel"]');
    await page.waitForSelector('[data-smsgw="question"]', { state: 'detached', timeout: 30000 });
    assert.match(String(await page.locator('[data-section="questions"]').textContent()), /No open question/);
    assert.deepEqual(pageErrors(), []);
  });
});
