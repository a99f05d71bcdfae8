/**
 * The sandbox console in a real browser: an SMS sent through the client appears on the recipient's phone, a reply
 * typed on the phone is what QueryReceivedNewSMS collects, a number switched to unreachable gets a failed report,
 * the request log shows the XML with the password masked, faults are queued from the page.
 * With SMSGW_SCREENSHOTS=1 (npm run screenshots) the picture goes to docs/images/console.png for the README.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { ROOT } from '../../scripts/lib/package';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { GatewayClient } from '../../src/index';
import { openBrowser, type Browser } from './browser';
import { outDir, screenshots } from './stack';

const PASSWORD = 'console-e2e-secret';
const PHONE = '+4917012345678';
const PHONE_KEY = '4917012345678';
const OTHER = '+4915198765432';
const imageDir = screenshots ? join(ROOT, 'docs', 'images') : join(outDir, 'images');
const WAIT = { timeout: 15000 };

describe('sandbox console in Chromium', function () {
  let emu: RunningEmulator;
  let client: GatewayClient;
  let browser: Browser;
  let page: Page;
  let firstJob = 0;

  const phone = (key: string): Locator => page.locator(`.phone[data-number="${key}"]`);
  const send = async (to: string, text: string, extra: Record<string, unknown> = {}): Promise<number> => {
    const r = await client.send.sendSms({
      Caption: 'console-e2e',
      Sender: 'ACME',
      Recipient: [to],
      SMSText: text,
      SmsTyp: 'Standard',
      SendDate: null,
      ...extra,
    });
    assert.equal(r.Status, 'Ok');
    return r.JobId;
  };

  before(async function () {
    emu = await startEmulator({ password: PASSWORD, balance: 100 });
    client = new GatewayClient({ baseUrl: emu.url, user: 'demo', password: PASSWORD });
    browser = await openBrowser();
    page = browser.page;
    await page.goto(`${emu.url}/`);
    await page.locator('#conn[data-state="live"]').waitFor(WAIT);
  });
  after(async function () {
    await browser?.close();
    await client?.close();
    await emu?.close();
  });

  it('shows a sent SMS on its recipient’s phone, with sender, encoding, segments and delivery', async function () {
    assert.equal(await page.locator('#phones-empty').isVisible(), true);
    firstJob = await send(PHONE, 'Your code is 4711');
    const bubble = phone(PHONE_KEY).locator(`.msg.in[data-job="${firstJob}"]`);
    await bubble.waitFor(WAIT);
    assert.equal(await bubble.locator('.body').innerText(), 'Your code is 4711');
    assert.equal(await bubble.locator('.from').innerText(), 'ACME');
    const tags = await bubble.locator('.tag').allInnerTexts();
    assert.deepEqual(tags, ['GSM-7', '1 segment']);
    await bubble.locator('.state[data-kind="ok"]', { hasText: 'DELIVERED' }).waitFor(WAIT);
    assert.equal(await page.locator('#phones-empty').isVisible(), false);
  });

  it('marks long, UCS-2 and flash texts', async function () {
    const id = await send(PHONE, 'Grüße aus dem Emulator ✓ '.repeat(4), { SmsTyp: 'StandardLong' });
    const flash = await send(PHONE, 'Flash!', { SmsTyp: 'Flash' });
    const long = phone(PHONE_KEY).locator(`.msg.in[data-job="${id}"] .tag`);
    await long.first().waitFor(WAIT);
    assert.deepEqual(await long.allInnerTexts(), ['UCS-2', '2 segments', 'long']);
    const f = phone(PHONE_KEY).locator(`.msg.in[data-job="${flash}"] .tag`);
    await f.first().waitFor(WAIT);
    assert.deepEqual(await f.allInnerTexts(), ['GSM-7', '1 segment', 'flash']);
    // newest at the bottom
    const order = await phone(PHONE_KEY)
      .locator('.msg.in')
      .evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-job'))));
    assert.deepEqual(order, [firstJob, id, flash]);
  });

  it('a reply typed on the phone is what QueryReceivedNewSMS collects', async function () {
    const box = phone(PHONE_KEY).locator('form.reply');
    await box.locator('input').fill('Yes, see you at 8');
    await box.locator('button[type="submit"]').click();
    const sent = phone(PHONE_KEY).locator('.msg.out', { hasText: 'Yes, see you at 8' });
    await sent.waitFor(WAIT);
    assert.equal(await box.locator('input').inputValue(), '', 'the box is cleared after sending');
    await sent.locator('.state', { hasText: 'waiting' }).waitFor(WAIT);

    const received = await client.information.queryReceivedNewSms();
    const mine = received.filter((m) => m.Text === 'Yes, see you at 8');
    assert.equal(mine.length, 1);
    assert.equal(mine[0]!.Sender, PHONE);
    assert.equal(mine[0]!.JobId, await lastJobId(), 'a reply to the newest job on that phone');
    await sent.locator('.state[data-kind="ok"]', { hasText: 'collected' }).waitFor(WAIT);
  });

  it('a number switched to unreachable gets a failed delivery report', async function () {
    await send(OTHER, 'Are you there?');
    const other = phone('4915198765432');
    await other.waitFor(WAIT);
    await other.locator('button[data-sub="unreachable"]').click();
    await other.locator('.sub-state[data-state="unreachable"]').waitFor(WAIT);
    assert.equal(await other.locator('button[data-sub="unreachable"]').getAttribute('aria-pressed'), 'true');
    const id = await send(OTHER, 'Second try');
    const bubble = other.locator(`.msg.in[data-job="${id}"]`);
    await bubble.locator('.state[data-kind="bad"]', { hasText: 'EXPIRED' }).waitFor(WAIT);
    const row = page.locator(`#jobs tr[data-job="${id}"]`);
    await row.locator('td', { hasText: 'Fehler' }).waitFor(WAIT);
    assert.match(await row.locator('.reports').innerText(), /EXPIRED/);
  });

  it('shows the balance going down as jobs are charged', async function () {
    const balance = await client.information.queryAccountBalance();
    assert.ok(balance < 100);
    const credits = page.locator('.account[data-user="demo"] .credits');
    await page.waitForFunction(
      (expected) => document.querySelector('.account[data-user="demo"] .credits')?.textContent === expected,
      balance.toLocaleString('en-US', { maximumFractionDigits: 4 }),
      WAIT,
    );
    assert.ok((await credits.innerText()).length > 0);
    const points = await page.locator('.account[data-user="demo"] .chart polyline').getAttribute('points');
    assert.ok((points ?? '').split(' ').length >= 3, 'the chart has steps');
  });

  it('lists the requests and shows their XML on click, with the password masked', async function () {
    const row = page.locator('#requests tbody tr', { hasText: 'SendSMS' }).first();
    await row.waitFor(WAIT);
    assert.match(await row.innerText(), /SendSMS\s+soap11\s+200/);
    await row.click();
    const xml = await page.locator('#request-xml').innerText();
    assert.match(xml, /<(\w+:)?Password>\*\*\*<\/(\w+:)?Password>/);
    assert.match(await page.locator('#response-xml').innerText(), /SendSMSResult/);
    const indent = (name: string): number | undefined =>
      new RegExp(`^( *)<(\\w+:)?${name}[\\s>]`, 'm').exec(xml)?.[1]?.length;
    assert.ok(indent('User')! > indent('Envelope')!, 'indented for reading');
    assert.equal(indent('User'), indent('Password'), 'siblings line up');
    await page.check('#raw-xml');
    const logged = emu.requests
      .list()
      .filter((e) => e.operation === 'SendSMS')
      .pop()!;
    assert.equal(await page.locator('#request-xml').textContent(), logged.request);
    await page.uncheck('#raw-xml');
    assert.ok(!(await page.content()).includes(PASSWORD), 'no password anywhere on the page');
  });

  it('queues faults from the form and clears them', async function () {
    await page.selectOption('#fault-form select[name="kind"]', 'http503');
    await page.fill('#fault-form input[name="count"]', '2');
    await page.fill('#fault-form input[name="operation"]', 'QueryAccountBalance');
    await page.click('#fault-form button[type="submit"]');
    await page.locator('#faults li', { hasText: 'http503 × 2 (QueryAccountBalance)' }).waitFor(WAIT);
    assert.deepEqual(
      emu.faults.list().map((f) => [f.kind, f.remaining, f.operation]),
      [['http503', 2, 'QueryAccountBalance']],
    );
    await assert.rejects(
      client.information.queryAccountBalance(),
      (e: { code?: string }) => e.code === 'HTTP',
    );
    await page.locator('#faults li', { hasText: 'http503 × 1' }).waitFor(WAIT);
    await page.selectOption('#fault-form select[name="kind"]', 'delay');
    await page.fill('#fault-form input[name="operation"]', '');
    await page.click('#fault-form button[type="submit"]');
    await page.locator('#faults li', { hasText: 'delay 2000 ms × 2' }).waitFor(WAIT);
    await snap(page, 'console.png');
    await page.click('#faults-clear');
    await page.locator('#faults-empty').waitFor({ state: 'visible', ...WAIT });
    assert.deepEqual(emu.faults.list(), []);
  });

  it('follows a restarted emulator: reconnects and shows the new, empty state', async function () {
    const port = emu.port;
    await emu.close();
    await page.locator('#conn[data-state="lost"]').waitFor(WAIT);
    emu = await startEmulator({ port, password: PASSWORD });
    await page.locator('#conn[data-state="live"]').waitFor(WAIT);
    await page.locator('#phones-empty').waitFor({ state: 'visible', ...WAIT });
    assert.equal(await page.locator('.phone').count(), 0);
    assert.equal(await page.locator('#jobs tbody tr').count(), 0);
  });

  it('sent nothing off this machine and logged no page errors', function () {
    assert.deepEqual(browser.blocked, []);
    assert.deepEqual(browser.errors, []);
  });

  async function lastJobId(): Promise<number> {
    const jobs = await client.information.queryJobs({ StartDate: null, EndDate: null });
    return Math.max(...jobs.filter((j) => j.Recipient === PHONE).map((j) => j.Id));
  }
});

async function snap(page: Page, name: string): Promise<void> {
  mkdirSync(imageDir, { recursive: true });
  await page.locator('.layout').evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(imageDir, name), fullPage: true });
}
