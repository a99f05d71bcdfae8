/**
 * The gateway configuration's Opt-out tab in a real browser: a person imports numbers onto the list from a CSV
 * file, sees how many are on it, exports it as CSV, and a send to a number on the list is refused with OPTED_OUT
 * (the Catch node's debug in the sidebar) while the other recipient of the same msg is sent.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { DEMO, listExamples } from '../../scripts/lib/flows';
import { openBrowser, type Browser } from './browser';
import { configTab, editGatewayConfig, openEditDialog, showSidebarTab } from './editor';
import { CONFIG_TYPE, nodeRedVersion, outDir, startStack, type Stack } from './stack';

const TAB = 'e2e00000000optab';
const CFG = 'e2e00000000opcfg';
const ID = {
  inject: 'e2e0000000opinj1',
  send: 'e2e0000000opsnd1',
  catch: 'e2e0000000opcat1',
  errors: 'e2e0000000opdbg1',
};
/** The send node's two recipients: the first goes on the list, the second stays off it. */
const LISTED = '+4917012345678';
const OTHER = '+4917087654321';
/** A number on the list that the flow never texts: the list holds more than the one number the send meets. */
const ALSO_LISTED = '+4915112345678';

interface EmulatorState {
  accounts: { jobs: { id: number; recipients?: unknown }[] }[];
}
async function jobCount(stack: Stack): Promise<number> {
  const state = (await (await fetch(`${stack.emulator.url}/_emulator/state`)).json()) as EmulatorState;
  return state.accounts.flatMap((a) => a.jobs).length;
}

/** The gateway configuration of the examples (every field as a saved one has it), with the opt-out list on. */
function flows(emulatorUrl: string): unknown[] {
  const example = listExamples().find((e) => e.name === 'Alarm to SMS');
  const config = example?.nodes.find((n) => n.type === CONFIG_TYPE);
  assert.ok(config, 'the Alarm to SMS example has a gateway configuration');
  return [
    { id: TAB, type: 'tab', label: 'Opt-out', disabled: false, info: '' },
    {
      ...config,
      id: CFG,
      name: 'Opt-out gateway',
      baseUrl: emulatorUrl,
      credentials: { ...DEMO },
      optOut: true,
      // no replies are read in this test: the list changes only by the editor's import
      optOutKeywords: false,
    },
    {
      id: ID.inject,
      type: 'inject',
      z: TAB,
      name: 'alarm',
      props: [{ p: 'payload' }],
      repeat: '',
      once: false,
      payload: 'pump 3 stopped',
      payloadType: 'str',
      x: 140,
      y: 80,
      wires: [[ID.send]],
    },
    {
      id: ID.send,
      type: 'smsgw-send-sms',
      z: TAB,
      name: 'SMS to both',
      gateway: CFG,
      output: 'payload',
      operation: 'SendSMS',
      recipient: `${LISTED}, ${OTHER}`,
      recipientType: 'str',
      text: 'payload',
      textType: 'msg',
      smsType: 'Standard',
      smsTypeType: 'smstype',
      x: 360,
      y: 80,
      wires: [[]],
    },
    {
      id: ID.catch,
      type: 'catch',
      z: TAB,
      name: 'send errors',
      scope: null,
      x: 140,
      y: 160,
      wires: [[ID.errors]],
    },
    {
      id: ID.errors,
      type: 'debug',
      z: TAB,
      name: 'error code',
      active: true,
      tosidebar: true,
      console: false,
      tostatus: false,
      complete: 'error.code',
      targetType: 'msg',
      x: 360,
      y: 160,
      wires: [],
    },
  ];
}

/** Waits (bounded) until the Opt-out tab's count says `count` numbers, refreshing as a person would. */
async function listCount(page: Page, count: number): Promise<void> {
  const box = page.locator('#smsgw-config-optout-count');
  for (let i = 0; i < 20; i++) {
    if ((await box.innerText()).includes(`Numbers on the list: ${count}`)) return;
    await page.waitForTimeout(500);
    await page.click('#smsgw-config-optout-refresh');
  }
  assert.fail(`the Opt-out tab shows ${JSON.stringify(await box.innerText())}, not ${count} numbers`);
}

describe(`gateway configuration's Opt-out tab in Chromium: Node-RED ${nodeRedVersion}`, function () {
  let stack: Stack;
  let browser: Browser;
  let page: Page;

  before(async function () {
    stack = await startStack('optout', flows);
    browser = await openBrowser();
    page = browser.page;
    await page.goto(`${stack.nodeRed.url}/`);
    await page.waitForSelector('#red-ui-palette-container .red-ui-palette-node', { timeout: 60000 });
    await page.click(`#red-ui-tab-${TAB} a`);
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && page) {
      mkdirSync(outDir, { recursive: true });
      const file = `failed-optout-${this.currentTest.title.replace(/\W+/g, '-').slice(0, 50)}.png`;
      await page.screenshot({ path: join(outDir, file) }).catch(() => undefined);
    }
  });
  after(async function () {
    await browser?.close();
    await stack?.stop();
  });

  it('imports numbers from a CSV file, shows how many are listed and exports the list as CSV', async function () {
    await openEditDialog(page, ID.send);
    await editGatewayConfig(page);
    try {
      await configTab(page, 'optout');
      await listCount(page, 0);
      // A spreadsheet's file: semicolons, a German header, one number in national form with the country code.
      const csv = `Nummer;Status\n${LISTED};abgemeldet\n${ALSO_LISTED};abgemeldet\n`;
      page.once('dialog', (d) => void d.accept());
      await page.setInputFiles('#smsgw-config-optout-file', {
        name: 'stop-list.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from(csv, 'utf8'),
      });
      await page.locator('.red-ui-notification', { hasText: 'Imported: 2 rows' }).waitFor({ timeout: 15000 });
      await listCount(page, 2);
      // Export: the file the browser downloads is the list, each number with its state and where it came from.
      const [download] = await Promise.all([
        page.waitForEvent('download', { timeout: 15000 }),
        page.click('#smsgw-config-optout-export'),
      ]);
      assert.equal(download.suggestedFilename(), `optout-${CFG}.csv`);
      const saved = await download.path();
      const lines = readFileSync(saved, 'utf8').trim().split(/\r\n/);
      assert.equal(lines[0], 'number,state,since,source');
      const rows = lines
        .slice(1)
        .map((l) => l.split(','))
        .map(([number, state, , source]) => `${number} ${state} ${source}`)
        .sort();
      assert.deepEqual(rows, [`${ALSO_LISTED} opted-out import`, `${LISTED} opted-out import`].sort());
    } finally {
      // A dialog left open would block the next test.
      await page.click('#node-config-dialog-cancel');
      await page.waitForSelector('#node-config-input-baseUrl', { state: 'detached' });
      await page.click('#node-dialog-cancel');
      await page.waitForSelector('#node-dialog-ok', { state: 'detached' });
    }
  });

  it('a send to a listed number: that one refused with OPTED_OUT (Catch node, debug sidebar), the other sent', async function () {
    await showSidebarTab(page, 'debug');
    const before = await jobCount(stack);
    await page.click(`[id="${ID.inject}"] .red-ui-flow-node-button`);
    const shown = page.locator(`.red-ui-debug-msg.red-ui-debug-msg-node-${ID.errors}`);
    await shown.first().waitFor({ timeout: 20000 });
    assert.match(
      (await shown.first().locator('.red-ui-debug-msg-payload').innerText()).trim(),
      /^"?OPTED_OUT"?$/,
    );
    // The other recipient of the same msg was sent: one job at the emulator, and the node's status names the skipped.
    const end = Date.now() + 20_000;
    while ((await jobCount(stack)) === before) {
      assert.ok(Date.now() < end, 'the other recipient was not sent');
      await page.waitForTimeout(100);
    }
    assert.equal(await jobCount(stack), before + 1);
    assert.equal(await shown.count(), 1, 'one OPTED_OUT for the one msg');
  });

  it('sent nothing off this machine and raised no page errors', function () {
    // the editor asks the Flow Library catalogue for the palette manager (aborted: Node-RED's, not ours)
    assert.deepEqual(
      browser.blocked.filter((u) => !u.startsWith('https://catalogue.nodered.org/')),
      [],
    );
    const http = browser.errors.filter((e) => e.startsWith('HTTP '));
    const others = browser.errors.filter(
      (e) => !e.startsWith('HTTP ') && !/Failed to load resource|ERR_FAILED|net::/.test(e),
    );
    assert.deepEqual([...http, ...others], []);
  });
});
