/**
 * The sandbox console next to a real Node-RED, in one Chromium: the inject button of a deployed flow sends an SMS
 * through smsgw-send-sms, the text appears on the recipient's phone in the console, a reply typed on that phone
 * is picked up by an smsgw-inbound node and shows in the editor's debug sidebar.
 * With SMSGW_SCREENSHOTS=1 (npm run screenshots) the console picture goes to docs/images/console-flow.png.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { CONFIG_TYPE, DEMO, type FlowNode } from '../../scripts/lib/flows';
import { ROOT } from '../../scripts/lib/package';
import { openBrowser, type Browser } from './browser';
import { showSidebarTab } from './editor';
import { nodeRedVersion, outDir, screenshots, startStack, type Stack } from './stack';

const PHONE = '+4917012345678';
const PHONE_KEY = '4917012345678';
const ALARM = 'ALARM: pump 3 stopped at station North';
const REPLY = 'On my way, ETA 20 min';
const imageDir = screenshots ? join(ROOT, 'docs', 'images') : join(outDir, 'images');
const WAIT = { timeout: 20000 };

// Fresh ids each run: the inbound node keeps its seen ids in a state file in the (reused) user directory, and a
// new emulator numbers its messages from 1 again.
const run = randomBytes(4).toString('hex');
const ID = {
  tab: `cf${run}00000001`,
  config: `cf${run}00000002`,
  inject: `cf${run}00000003`,
  send: `cf${run}00000004`,
  sent: `cf${run}00000005`,
  inbound: `cf${run}00000006`,
  received: `cf${run}00000007`,
};

function flow(emulatorUrl: string): FlowNode[] {
  const z = ID.tab;
  const debug = (id: string, name: string, y: number): FlowNode => ({
    id,
    type: 'debug',
    z,
    name,
    active: true,
    tosidebar: true,
    console: false,
    tostatus: false,
    complete: 'payload',
    targetType: 'msg',
    x: 660,
    y,
    wires: [],
  });
  return [
    { id: z, type: 'tab', label: 'Console round trip', disabled: false, info: '' },
    {
      id: ID.config,
      type: CONFIG_TYPE,
      name: 'Local emulator',
      baseUrl: emulatorUrl,
      service: 'gateway',
      transport: 'soap11',
      timeout: 30,
      credentials: { ...DEMO },
    },
    {
      id: ID.inject,
      type: 'inject',
      z,
      name: 'pump 3 stopped',
      props: [{ p: 'payload' }, { p: 'topic', vt: 'str' }],
      repeat: '',
      crontab: '',
      once: false,
      onceDelay: 0.1,
      topic: 'alarm-pump-3',
      payload: ALARM,
      payloadType: 'str',
      x: 160,
      y: 100,
      wires: [[ID.send]],
    },
    {
      id: ID.send,
      type: 'smsgw-send-sms',
      z,
      name: 'SMS to on-call',
      gateway: ID.config,
      operation: 'SendSMS',
      recipient: PHONE,
      recipientType: 'str',
      text: 'payload',
      textType: 'msg',
      sender: 'Plant',
      senderType: 'str',
      caption: 'topic',
      captionType: 'msg',
      smsType: 'Standard',
      smsTypeType: 'smstype',
      sendDate: '',
      sendDateType: 'str',
      jobPriority: '',
      jobPriorityType: 'num',
      x: 410,
      y: 100,
      wires: [[ID.sent]],
    },
    debug(ID.sent, 'sent', 100),
    {
      id: ID.inbound,
      type: 'smsgw-inbound',
      z,
      name: 'replies',
      gateway: ID.config,
      interval: 1,
      inputs: 0,
      dropReports: false,
      x: 160,
      y: 200,
      wires: [[ID.received]],
    },
    debug(ID.received, 'reply received', 200),
  ];
}

/** The other e2e files watch the browser's first page; the console page gets the same watch here. */
function watch(page: Page, errors: string[]): void {
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('response', (r) => {
    if (r.status() >= 400) errors.push(`HTTP ${r.status()} ${r.request().method()} ${r.url()}`);
  });
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
}

describe(`sandbox console with a Node-RED ${nodeRedVersion} flow in Chromium`, function () {
  let stack: Stack;
  let browser: Browser;
  let editor: Page;
  let consolePage: Page;
  const consoleErrors: string[] = [];
  const phone = (): Locator => consolePage.locator(`.phone[data-number="${PHONE_KEY}"]`);

  before(async function () {
    stack = await startStack('console-flow', flow);
    browser = await openBrowser();
    editor = browser.page;
    await editor.goto(`${stack.nodeRed.url}/`);
    await editor.locator(`[id="${ID.inject}"] .red-ui-flow-node-button`).waitFor({ timeout: 60000 });
    consolePage = await browser.context.newPage();
    watch(consolePage, consoleErrors);
    await consolePage.goto(`${stack.emulator.url}/`);
    await consolePage.locator('#conn[data-state="live"]').waitFor(WAIT);
  });
  afterEach(async function () {
    if (this.currentTest?.state !== 'failed') return;
    mkdirSync(outDir, { recursive: true });
    const base = `failed-console-flow-${this.currentTest.title.replace(/\W+/g, '-').slice(0, 50)}`;
    await editor?.screenshot({ path: join(outDir, `${base}-editor.png`) }).catch(() => undefined);
    await consolePage?.screenshot({ path: join(outDir, `${base}-console.png`) }).catch(() => undefined);
  });
  after(async function () {
    await browser?.close();
    await stack?.stop();
  });

  let jobId = 0;

  it('the inject button sends the SMS through the flow and it arrives on the recipient’s phone', async function () {
    assert.equal(await consolePage.locator('.phone').count(), 0, 'no phone before the flow sent anything');
    await showSidebarTab(editor, 'debug');
    await editor.bringToFront();
    await editor.click(`[id="${ID.inject}"] .red-ui-flow-node-button`);
    await editor.waitForSelector(`[id="${ID.send}"] .red-ui-flow-node-status-dot-green`, WAIT);

    const bubble = phone().locator('.msg.in', { hasText: ALARM });
    await bubble.waitFor(WAIT);
    assert.equal(await bubble.locator('.body').innerText(), ALARM);
    assert.equal(await bubble.locator('.from').innerText(), 'Plant');
    jobId = Number(await bubble.getAttribute('data-job'));
    assert.ok(jobId > 0, 'the bubble names its job');
    // the send node reports the same job on its status
    const status =
      (await editor.locator(`[id="${ID.send}"] .red-ui-flow-node-status-label`).textContent()) ?? '';
    assert.match(status, new RegExp(`\\b${jobId}\\b`), `send node status "${status}" lacks job ${jobId}`);
    await bubble.locator('.state[data-kind="ok"]', { hasText: 'DELIVERED' }).waitFor(WAIT);
  });

  it('a reply typed on that phone comes out of the smsgw-inbound node in the debug sidebar', async function () {
    const fromInbound = editor.locator(`.red-ui-debug-msg.red-ui-debug-msg-node-${ID.received}`);
    assert.equal(await fromInbound.count(), 0, 'the inbound node emitted before anyone replied');

    await consolePage.bringToFront();
    const box = phone().locator('form.reply');
    await box.locator('input').fill(REPLY);
    await box.locator('button[type="submit"]').click();
    const sent = phone().locator('.msg.out', { hasText: REPLY });
    await sent.waitFor(WAIT);
    // the inbound node polls every second: the console marks the reply collected once it has read it
    await sent.locator('.state[data-kind="ok"]', { hasText: 'collected' }).waitFor(WAIT);

    await editor.bringToFront();
    await fromInbound.first().waitFor(WAIT);
    assert.equal(await fromInbound.count(), 1, 'one reply, one message');
    const payload = await fromInbound.locator('.red-ui-debug-msg-payload').innerText();
    assert.equal(payload.trim(), JSON.stringify(REPLY), 'the payload is the reply, a string');
    const meta = await fromInbound.locator('.red-ui-debug-msg-meta').innerText();
    assert.match(meta, /reply received/, 'shown under the debug node wired to smsgw-inbound');
    assert.ok(meta.includes(PHONE), `msg.topic is the sender ${PHONE}: "${meta}"`);
    await editor.waitForSelector(`[id="${ID.inbound}"] .red-ui-flow-node-status-dot-green`, WAIT);

    await snap(consolePage, 'console-flow.png');
  });

  it('sent nothing off this machine and logged no page errors', function () {
    // the editor asks the Flow Library catalogue for the palette manager; that is Node-RED's, not ours
    const catalogue = browser.blocked.filter((u) => u.startsWith('https://catalogue.nodered.org/'));
    assert.deepEqual(
      browser.blocked.filter((u) => !catalogue.includes(u)),
      [],
    );
    // Chromium logs each request we aborted as "Failed to load resource: net::ERR_FAILED" without its URL (failing
    // HTTP answers are recorded by URL); as many of those lines as catalogue requests are the catalogue's
    const ABORTED = 'console: Failed to load resource: net::ERR_FAILED';
    const aborted = browser.errors.filter((e) => e === ABORTED);
    assert.ok(
      aborted.length <= catalogue.length,
      `${aborted.length} aborted loads, ${catalogue.length} blocked`,
    );
    assert.deepEqual(
      browser.errors.filter((e) => e !== ABORTED),
      [],
    );
    assert.deepEqual(consoleErrors, [], 'the console page loads nothing from elsewhere and logs no error');
  });
});

/** The phone with both texts, scrolled into view, and the page around it. */
async function snap(page: Page, name: string): Promise<void> {
  mkdirSync(imageDir, { recursive: true });
  await page.locator('.layout').evaluate(() => window.scrollTo(0, 0));
  await page.locator(`.phone[data-number="${PHONE_KEY}"]`).scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(imageDir, name) });
}
