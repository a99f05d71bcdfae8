/**
 * A newcomer's first minutes, in a real browser: find the nodes in the palette, configure the gateway with
 * "Test connection", build inject -> send SMS -> debug, deploy, see the status and the JobId, find the examples.
 * With SMSGW_SCREENSHOTS=1 (npm run screenshots) the pictures go to docs/images/ for the README.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { examplesForDeploy, listExamples } from '../../scripts/lib/flows';
import { ROOT } from '../../scripts/lib/package';
import { openBrowser, type Browser } from './browser';
import {
  addNode,
  clearPaletteSearch,
  gatewayOf,
  configTab,
  deploy,
  openEditDialog,
  setTypedString,
  showSidebarTab,
  wire,
} from './editor';
import { listServedExamples } from './examples';
import {
  CATEGORY,
  CONFIG_TYPE,
  MODULE,
  nodeRedVersion,
  outDir,
  PALETTE_TYPES,
  screenshots,
  startStack,
  type Stack,
} from './stack';

const TAB = 'e2e0000000000001';
const imageDir = screenshots ? join(ROOT, 'docs', 'images') : join(outDir, 'images');

interface EmulatorState {
  accounts: { account: { user: string; balance: number }; jobs: { id: number }[] }[];
}
async function emulatorState(stack: Stack): Promise<EmulatorState> {
  return (await (await fetch(`${stack.emulator.url}/_emulator/state`)).json()) as EmulatorState;
}

/** A theme colour as the browser computes it (rgb(...)), to compare with an element's colour. */
async function themeColour(page: Page, variable: string): Promise<string> {
  return page.evaluate((v) => {
    const probe = document.createElement('span');
    probe.style.color = `var(${v})`;
    document.body.appendChild(probe);
    const colour = getComputedStyle(probe).color;
    probe.remove();
    return colour;
  }, variable);
}

/** Clicks Test connection and waits for its result: state, text, colour and where it is drawn. */
async function testConnection(
  page: Page,
): Promise<{ state: string; text: string; colour: string; beside: boolean }> {
  await page.click('#smsgw-config-test');
  await page.waitForFunction(
    () =>
      /^(ok|failed)$/.test(
        document.querySelector('#smsgw-config-test-result')?.getAttribute('data-state') ?? '',
      ),
    undefined,
    { timeout: 15000 },
  );
  const result = page.locator('#smsgw-config-test-result');
  const [box, button] = await Promise.all([
    result.boundingBox(),
    page.locator('#smsgw-config-test').boundingBox(),
  ]);
  return {
    state: (await result.getAttribute('data-state')) ?? '',
    text: await result.innerText(),
    colour: await result.evaluate((e) => getComputedStyle(e).color),
    // right of the button, starting within its height (not wrapped below it)
    beside: box!.x >= button!.x + button!.width && box!.y < button!.y + button!.height,
  };
}

async function snap(page: Page, name: string): Promise<void> {
  mkdirSync(imageDir, { recursive: true });
  await page.screenshot({ path: join(imageDir, name) });
}

describe(`editor in Chromium: Node-RED ${nodeRedVersion}`, function () {
  let stack: Stack;
  let browser: Browser;
  let page: Page;

  before(async function () {
    // an empty tab first (the editor opens on it), then the examples wired to the emulator
    stack = await startStack('editor', (url) => [
      { id: TAB, type: 'tab', label: 'My first flow', disabled: false, info: '' },
      ...examplesForDeploy(url),
    ]);
    browser = await openBrowser();
    page = browser.page;
    await page.goto(`${stack.nodeRed.url}/`);
    await page.waitForSelector('#red-ui-palette-container .red-ui-palette-node', { timeout: 60000 });
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && page) {
      mkdirSync(outDir, { recursive: true });
      const file = `failed-${this.currentTest.title.replace(/\W+/g, '-').slice(0, 60)}.png`;
      await page.screenshot({ path: join(outDir, file) }).catch(() => undefined);
    }
  });
  after(async function () {
    await browser?.close();
    await stack?.stop();
  });

  it(`shows every node type in the palette under "${CATEGORY}"`, async function () {
    const catId = CATEGORY.replace(/[^-0-9A-Za-z\u0080-\uffff]/g, '_'); // as the editor builds ids
    const container = page.locator(`#red-ui-palette-container-${catId}`);
    assert.equal(await container.locator('.red-ui-palette-header').innerText(), CATEGORY);
    for (const type of PALETTE_TYPES) {
      assert.equal(
        await container.locator(`.red-ui-palette-node[data-palette-type="${type}"]`).count(),
        1,
        type,
      );
    }
    const shown = await container
      .locator('.red-ui-palette-node')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-palette-type')));
    assert.deepEqual([...shown].sort(), [...PALETTE_TYPES].sort());
    // the palette filtered to our category, as someone searching for "sms" sees it
    const search = page.locator('#red-ui-palette-search input');
    await search.click();
    await search.pressSequentially('sms', { delay: 30 });
    await page.locator('.red-ui-palette-node[data-palette-type="inject"]').waitFor({ state: 'hidden' });
    await page.waitForTimeout(300);
    mkdirSync(imageDir, { recursive: true });
    await page.locator('#red-ui-palette').screenshot({ path: join(imageDir, 'palette.png') });
    await clearPaletteSearch(page);
    await page.locator('.red-ui-palette-node[data-palette-type="inject"]').waitFor({ state: 'visible' });
  });

  it("shows every node's own icon in the palette, served from the installed package", async function () {
    // Node-RED reads icons only beside the node's .js (nodes/icons/, placed there by the build from icons/)
    const listed = (await (
      await fetch(`${stack.nodeRed.url}/icons`, { headers: { Accept: 'application/json' } })
    ).json()) as Record<string, string[]>;
    for (const type of PALETTE_TYPES) {
      const icon = await page.evaluate(
        (t) =>
          (
            window as unknown as { RED: { nodes: { getType(t: string): { icon: string } } } }
          ).RED.nodes.getType(t).icon,
        type,
      );
      assert.ok((listed[MODULE] ?? []).includes(icon), `GET /icons does not list ${icon} for ${MODULE}`);
      const background = await page
        .locator(`.red-ui-palette-node[data-palette-type="${type}"] .red-ui-palette-icon`)
        .evaluate((el) => getComputedStyle(el).backgroundImage);
      assert.ok(
        background.includes(`icons/${MODULE}/${icon}`),
        `${type} shows ${background}, not its icon ${icon}`,
      );
      // fetched as the editor does; Node-RED answers a missing icon with its default one, so compare the bytes
      const served = await page.evaluate(async (url) => {
        const res = await fetch(url);
        return { status: res.status, type: res.headers.get('content-type') ?? '', body: await res.text() };
      }, `icons/${MODULE}/${icon}`);
      assert.equal(served.status, 200, icon);
      assert.match(served.type, /^image\/svg\+xml/, icon);
      assert.equal(served.body, readFileSync(join(ROOT, 'icons', icon), 'utf8'), `${icon} is not ours`);
    }
  });

  let sendId = '';
  let injectId = '';

  it('builds inject -> send SMS -> debug and configures the gateway, with Test connection showing the balance', async function () {
    injectId = await addNode(page, 'inject', 120, 120);
    sendId = await addNode(page, 'smsgw-send-sms', 400, 120);
    const debugId = await addNode(page, 'debug', 680, 120);
    await wire(page, injectId, sendId);
    await wire(page, sendId, debugId);
    const links = await page.evaluate(() => {
      type Link = { source: { id: string }; target: { id: string } };
      const RED = (window as unknown as { RED: { nodes: { eachLink(cb: (l: Link) => void): void } } }).RED;
      const out: string[] = [];
      RED.nodes.eachLink((l) => out.push(`${l.source.id}>${l.target.id}`));
      return out;
    });
    assert.ok(links.includes(`${injectId}>${sendId}`), 'no wire from inject to send SMS');
    assert.ok(links.includes(`${sendId}>${debugId}`), 'no wire from send SMS to debug');

    await openEditDialog(page, sendId);
    // a new gateway configuration, created from the node's dialog
    const add = page.locator('#node-input-btn-gateway-add');
    if ((await add.count()) > 0) await add.click();
    else {
      await page.selectOption('#node-input-gateway', '_ADD_');
      await page.click('#node-input-lookup-gateway');
    }
    await page.waitForSelector('#node-config-input-baseUrl', { state: 'visible' });
    // the dialog's title names it as the palette does, not by its type
    const title = await page.locator('.red-ui-tray-titlebar').last().innerText();
    assert.match(title, /Add new SMS gateway config node/);
    assert.doesNotMatch(title, /smsgw-config/);
    // a new configuration points nowhere yet (not at the emulator): empty, with an example as placeholder
    assert.equal(await page.inputValue('#node-config-input-baseUrl'), '');
    assert.equal(
      await page.getAttribute('#node-config-input-baseUrl', 'placeholder'),
      'https://gateway.example.com',
    );
    // tabs as in the core MQTT broker dialog
    assert.deepEqual(await page.locator('#smsgw-config-tabs li').allInnerTexts(), [
      'Connection',
      'Security',
      'Delivery',
      'Messages',
      'Budget',
      'Opt-out',
    ]);
    await page.fill('#node-config-input-name', 'Local emulator');
    await page.fill('#node-config-input-baseUrl', stack.emulator.url);
    await configTab(page, 'security');
    assert.equal(await page.isVisible('#node-config-input-baseUrl'), false, 'one tab at a time');
    await page.fill('#node-config-input-user', 'demo');
    await page.fill('#node-config-input-password', 'wrong-password');
    // the result beside the button, red for a failure, green for success
    let outcome = await testConnection(page);
    assert.equal(outcome.state, 'failed');
    assert.match(outcome.text, /AUTH/);
    assert.equal(outcome.colour, await themeColour(page, '--red-ui-text-color-error'));
    assert.ok(outcome.beside, 'the result sits beside the button');
    await page.fill('#node-config-input-password', 'demo-password');

    // HTTP POST over plain http is refused until the checkbox the error names is ticked
    await configTab(page, 'connection');
    await page.selectOption('#node-config-input-transport', 'post');
    assert.equal(await page.isVisible('#smsgw-config-insecure-warning'), true);
    outcome = await testConnection(page);
    assert.equal(outcome.state, 'failed');
    const checkbox = (await page.locator('label[for="node-config-input-allowInsecure"]').innerText()).trim();
    assert.ok(outcome.text.includes(`tick "${checkbox}"`), `"${outcome.text}" does not name "${checkbox}"`);
    await page.check('#node-config-input-allowInsecure');
    assert.equal((await testConnection(page)).state, 'ok');
    await page.uncheck('#node-config-input-allowInsecure');
    await page.selectOption('#node-config-input-transport', 'soap11');
    assert.equal(await page.isVisible('#node-config-input-allowInsecure'), false);

    outcome = await testConnection(page);
    assert.equal(outcome.state, 'ok');
    assert.equal(outcome.colour, await themeColour(page, '--red-ui-text-color-success'));
    const balance = (await emulatorState(stack)).accounts.find((a) => a.account.user === 'demo')!.account
      .balance;
    assert.match(
      outcome.text,
      new RegExp(`\\b${balance}\\b`),
      `"${outcome.text}" does not show the balance ${balance}`,
    );
    // Every hint beside a short field stays on the field's line and inside the dialog, on every tab.
    const misplaced: string[] = [];
    for (const tab of ['connection', 'security', 'delivery', 'messages', 'budget'] as const) {
      await configTab(page, tab);
      misplaced.push(
        ...(await page.evaluate((t) => {
          const out: string[] = [];
          const panel = document.querySelector(`#smsgw-config-tab-${t}`)!.getBoundingClientRect();
          for (const hint of document.querySelectorAll<HTMLElement>(
            `#smsgw-config-tab-${t} .form-row > input + span`,
          )) {
            if (hint.offsetParent === null) continue; // a hidden row
            const field = (hint.previousElementSibling as HTMLElement).getBoundingClientRect();
            const lines = [...hint.getClientRects()];
            const r = hint.getBoundingClientRect();
            if (lines.length > 1 || r.top >= field.bottom) out.push(`${t}: "${hint.innerText}" wraps`);
            else if (r.right > panel.right + 1) out.push(`${t}: "${hint.innerText}" is cut off`);
          }
          return out;
        }, tab)),
      );
    }
    assert.deepEqual(misplaced, []);
    await configTab(page, 'connection');

    // tall enough to show the Connection tab and Test connection below it in one picture
    await page.setViewportSize({ width: 1280, height: 1200 });
    await page.locator('#node-config-input-name').scrollIntoViewIfNeeded();
    await snap(page, 'config-dialog.png');
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.click('#node-config-dialog-ok');
    await page.waitForSelector('#node-config-input-baseUrl', { state: 'detached' });

    const selected = await page.locator('#node-input-gateway').inputValue();
    const configType = await page.evaluate(
      (id) =>
        (
          window as unknown as { RED: { nodes: { node(i: string): { type: string } | null } } }
        ).RED.nodes.node(id)?.type,
      selected,
    );
    assert.equal(configType, CONFIG_TYPE);
    // the Output property, as core's json node shows it: msg.payload unless changed
    const output = await page.evaluate(() => {
      const $ = (window as unknown as { $: (s: string) => { typedInput(a: string): string } }).$;
      return `${$('#node-input-output').typedInput('type')}.${$('#node-input-output').typedInput('value')}`;
    });
    assert.equal(output, 'msg.payload');
    await setTypedString(page, 'node-input-recipient', '+4917012345678');
    await setTypedString(page, 'node-input-text', 'The freezer is warm!');
    await page.fill('#node-input-name', 'text me');
    await page.waitForTimeout(400);
    await snap(page, 'edit-dialog.png');
    await page.click('#node-dialog-ok');
    await page.waitForSelector('#node-dialog-ok', { state: 'detached' });
    // no red triangle: the editor considers the node valid
    assert.equal(await page.locator(`[id="${sendId}"] .red-ui-flow-node-error:visible`).count(), 0);
  });

  it('deploys, turns the status green and shows the JobId in the debug sidebar', async function () {
    await deploy(page);
    await showSidebarTab(page, 'debug');
    const jobsBefore = (await emulatorState(stack)).accounts.flatMap((a) => a.jobs.map((j) => j.id));
    await page.click(`[id="${injectId}"] .red-ui-flow-node-button`);
    await page.waitForSelector(`[id="${sendId}"] .red-ui-flow-node-status-dot-green`, { timeout: 20000 });
    const msg = page.locator('.red-ui-debug-msg').last();
    await msg.waitFor({ timeout: 15000 });
    let text = await msg.innerText();
    if (!/JobId/.test(text)) {
      await msg.locator('.red-ui-debug-msg-object-handle').first().click();
      text = await msg.innerText();
    }
    const m = /JobId\W+(\d+)/.exec(text);
    assert.ok(m, `the debug message shows no JobId:\n${text}`);
    const jobsAfter = (await emulatorState(stack)).accounts.flatMap((a) => a.jobs.map((j) => j.id));
    const created = jobsAfter.filter((id) => !jobsBefore.includes(id));
    assert.deepEqual(created, [Number(m[1])], 'the JobId shown is the job the emulator created');
    const status =
      (await page.locator(`[id="${sendId}"] .red-ui-flow-node-status-label`).textContent()) ?? '';
    assert.match(status, new RegExp(m[1]!));
  });

  it('a new ask node: its gateway the one last used, the on-call placeholder, the wait field wide enough', async function () {
    const gateway = await gatewayOf(page, sendId);
    assert.ok(gateway, 'the send node was saved with a gateway configuration');
    const id = await addNode(page, 'smsgw-ask', 400, 260);
    await openEditDialog(page, id);
    await page.waitForSelector('#node-input-gateway option', { state: 'attached' });
    // not "none": the configuration the send node was saved with, as a user who just set one up expects
    await page.waitForFunction(
      (g) => (document.querySelector('#node-input-gateway') as HTMLSelectElement).value === g,
      gateway,
    );
    // the on-call field's placeholder says what to type, not numbers that look filled in
    const placeholder = (await page.getAttribute('#node-input-numbers', 'placeholder')) ?? '';
    assert.doesNotMatch(placeholder, /\+?\d{6,}/, placeholder);
    assert.match(placeholder, /order/);
    // an environment variable as the wait ("${WAIT_MIN}", as the example has it) shows whole
    await page.fill('#node-input-wait', '${WAIT_MIN}');
    const fits = await page.$eval(
      '#node-input-wait',
      (el) => (el as HTMLInputElement).scrollWidth <= (el as HTMLInputElement).clientWidth,
    );
    assert.ok(fits, 'the wait field shows ${WAIT_MIN} whole');
    await page.click('#node-dialog-cancel');
    await page.waitForSelector('#node-dialog-cancel', { state: 'detached' });
    // remove it again: the tests after this one deploy the flow
    await page.click(`[id="${id}"] .red-ui-flow-node`);
    await page.keyboard.press('Delete');
    await page.waitForSelector(`[id="${id}"]`, { state: 'detached' });
  });

  it('Budget tab: a daily limit set in the dialog, deployed, and the count after a send shown in the dialog', async function () {
    /** Opens the send node's gateway configuration on its Budget tab. */
    const openBudget = async (): Promise<void> => {
      await openEditDialog(page, sendId);
      // Node-RED 4.1 has a pencil button beside the select; older versions a lookup button
      const edit = page.locator('#node-input-btn-gateway-edit');
      await ((await edit.count()) > 0 ? edit.click() : page.click('#node-input-lookup-gateway'));
      await page.waitForSelector('#node-config-input-baseUrl', { state: 'attached' });
      await configTab(page, 'budget');
    };
    const closeBoth = async (button: 'ok' | 'cancel'): Promise<void> => {
      await page.click(`#node-config-dialog-${button}`);
      await page.waitForSelector('#node-config-input-baseUrl', { state: 'detached' });
      await page.click(`#node-dialog-${button}`);
      await page.waitForSelector('#node-dialog-ok', { state: 'detached' });
    };
    await openBudget();
    const count = page.locator('#smsgw-config-budget-count');
    // Deployed without a limit: nothing is counted, and the dialog says so.
    await page.waitForFunction(
      () => !/Loading/.test(document.querySelector('#smsgw-config-budget-count')?.textContent ?? 'Loading'),
    );
    assert.match(await count.innerText(), /No limit set/);
    // A config saved before the tab existed shows the defaults.
    assert.equal(await page.inputValue('#node-config-input-budgetWarn'), '80');
    assert.equal(await page.inputValue('#node-config-input-budgetReserve'), '0');
    assert.equal(await page.inputValue('#node-config-input-budgetOver'), 'refuse');
    await page.fill('#node-config-input-budgetDay', '100');
    await closeBoth('ok');
    await deploy(page);
    // The configuration restarts with its guard after the deploy answered: a msg before that reaches no node.
    const gatewayId = await gatewayOf(page, sendId);
    let limits = '';
    for (let i = 0; i < 60 && !/"limit":100/.test(limits); i++) {
      if (i > 0) await page.waitForTimeout(500);
      limits = await page.evaluate(
        (id) => fetch(`smsgw-config/${id}/budget`).then((r) => r.text()),
        gatewayId,
      );
    }
    assert.match(limits, /"limit":100/, 'the configuration runs with its daily limit');
    const before = (await emulatorState(stack)).accounts.flatMap((a) => a.jobs).length;
    await page.click(`[id="${injectId}"] .red-ui-flow-node-button`);
    const end = Date.now() + 20_000;
    while ((await emulatorState(stack)).accounts.flatMap((a) => a.jobs).length === before) {
      assert.ok(Date.now() < end, 'the send made no job');
      await page.waitForTimeout(100);
    }
    await openBudget();
    await page.waitForFunction(
      () => /day: 1 of 100/.test(document.querySelector('#smsgw-config-budget-count')?.textContent ?? ''),
      undefined,
      { timeout: 10_000 },
    );
    assert.match(await count.innerText(), /day: 1 of 100, resets /);
    await closeBoth('cancel');
  });

  it('Budget tab: counts lost (a damaged count file) are shown with "Confirm counts"; confirming clears them', async function () {
    const openBudget = async (): Promise<string> => {
      await openEditDialog(page, sendId);
      const gateway = await page.locator('#node-input-gateway').inputValue();
      const edit = page.locator('#node-input-btn-gateway-edit');
      await ((await edit.count()) > 0 ? edit.click() : page.click('#node-input-lookup-gateway'));
      await page.waitForSelector('#node-config-input-baseUrl', { state: 'attached' });
      await configTab(page, 'budget');
      return gateway;
    };
    const closeBoth = async (button: 'ok' | 'cancel'): Promise<void> => {
      await page.click(`#node-config-dialog-${button}`);
      await page.waitForSelector('#node-config-input-baseUrl', { state: 'detached' });
      await page.click(`#node-dialog-${button}`);
      await page.waitForSelector('#node-dialog-ok', { state: 'detached' });
    };
    // The count file is damaged while no guard runs: a running guard keeps its counts in memory and writes them
    // over the file at its next change, as it should. So the limits are switched off (the guard closes, writing
    // what it had), the file is damaged, and the limit switched on again: the new guard reads the damaged file.
    const redeploy = async (day: string): Promise<string> => {
      const gateway = await openBudget();
      await page.fill('#node-config-input-budgetDay', day);
      await closeBoth('ok');
      await deploy(page);
      return gateway;
    };
    const gateway = await redeploy('');
    // Node-RED starts the new configuration node only once the old one closed (and wrote its counts): wait until
    // the new one, without a guard, answers, so no write of the old guard can follow the damage.
    let enabled: unknown = true;
    for (let i = 0; i < 60 && enabled !== false; i++) {
      if (i > 0) await page.waitForTimeout(500);
      enabled = await page.evaluate(
        (id) =>
          fetch(`smsgw-config/${id}/budget`)
            .then((r) => r.json() as Promise<{ enabled?: unknown }>)
            .then((r) => r.enabled),
        gateway,
      );
    }
    assert.equal(enabled, false, 'the configuration runs without its guard');
    writeFileSync(join(stack.userDir, 'smsgw-state', `budget.${gateway}.json`), 'not a count file');
    await redeploy('100');
    await openBudget();
    // The configuration restarts after the deploy answered: on a busy machine the first look may still find the
    // guard opening its file. Refresh as a user would, a bounded number of times, and say what was shown.
    const confirmButton = page.locator('#smsgw-config-budget-confirm');
    for (let i = 0; i < 30 && (await confirmButton.count()) === 0; i++) {
      await page.waitForTimeout(1000);
      if ((await confirmButton.count()) === 0) await page.click('#smsgw-config-budget-refresh');
    }
    assert.equal(
      await confirmButton.count(),
      1,
      `no "Confirm counts": the dialog shows ${JSON.stringify(await page.locator('#smsgw-config-budget-count').innerText())}; ` +
        `the count file holds ${JSON.stringify(readFileSync(join(stack.userDir, 'smsgw-state', `budget.${gateway}.json`), 'utf8').slice(0, 200))}`,
    );
    assert.match(
      await page.locator('.smsgw-config-budget-lost').innerText(),
      /The counts were lost \(the count file was damaged/,
    );
    page.once('dialog', (d) => void d.accept());
    await page.click('#smsgw-config-budget-confirm');
    await page.waitForSelector('#smsgw-config-budget-confirm', { state: 'detached', timeout: 10_000 });
    await page.waitForFunction(
      () => /day: 0 of 100/.test(document.querySelector('#smsgw-config-budget-count')?.textContent ?? ''),
      undefined,
      { timeout: 10_000 },
    );
    assert.equal(await page.locator('.smsgw-config-budget-lost').count(), 0, 'the lost counts are gone');
    await closeBoth('cancel');
  });

  it('warns in the send SMS dialog as you type when the text is longer than its SMS type takes', async function () {
    await page.click('#red-ui-tab-' + TAB + ' a');
    await openEditDialog(page, sendId);
    const info = page.locator('#smsgw-send-sms-analysis');
    const warning = info.locator('.smsgw-too-long');
    const setType = (value: string) =>
      page.evaluate((v) => {
        const $ = (window as unknown as { $: (s: string) => { typedInput(...a: string[]): unknown } }).$;
        $('#node-input-smsType').typedInput('value', v);
      }, value);
    await setTypedString(page, 'node-input-text', 'a'.repeat(1993));
    await warning.waitFor({ timeout: 10000 });
    assert.equal(
      (await warning.innerText()).trim(),
      '1,993 characters, 14 segments: Standard allows 1 segment; StandardLong allows up to 10',
    );
    await setType('StandardLong');
    await page.waitForFunction(
      () =>
        /^1,993 characters, 14 segments: StandardLong allows up to 10$/.test(
          document.querySelector('#smsgw-send-sms-analysis .smsgw-too-long')?.textContent?.trim() ?? '',
        ),
      undefined,
      { timeout: 10000 },
    );
    // ten segments fit StandardLong: the counter stays, the warning goes
    await setTypedString(page, 'node-input-text', 'a'.repeat(1530));
    await warning.waitFor({ state: 'detached', timeout: 10000 });
    assert.match(await info.innerText(), /GSM-7 · 10 segments · 0 characters left/);
    // one segment in the singular, as the counter counts (no "segment(s)")
    await setTypedString(page, 'node-input-text', 'a');
    await page.waitForFunction(
      () =>
        /GSM-7 · 1 segment · 159 characters left/.test(
          document.querySelector('#smsgw-send-sms-analysis')?.textContent ?? '',
        ),
      undefined,
      { timeout: 10000 },
    );
    // over the hard cap: not analysed, the dialog says the node refuses it
    await setTypedString(page, 'node-input-text', 'a'.repeat(70_000));
    await page.waitForFunction(
      () =>
        /^70,000 characters: a text is at most 65,536 characters/.test(
          document.querySelector('#smsgw-send-sms-analysis .smsgw-too-long')?.textContent?.trim() ?? '',
        ),
      undefined,
      { timeout: 10000 },
    );
    await page.click('#node-dialog-cancel');
    await page.waitForSelector('#node-dialog-cancel', { state: 'detached' });
  });

  it('names the characters that force UCS-2 as you type, lists the look-alike replacements, and what the text costs of the day', async function () {
    await page.click('#red-ui-tab-' + TAB + ' a');
    await openEditDialog(page, sendId);
    try {
      const gateway = await page.locator('#node-input-gateway').inputValue();
      /** Waits until the element's whole text matches (bounded), and says what it showed when it never did. */
      const seen = async (re: RegExp, selector = '#smsgw-send-sms-analysis'): Promise<void> => {
        try {
          await page.waitForFunction(
            ([source, sel]) => new RegExp(source!).test(document.querySelector(sel!)?.textContent ?? ''),
            [re.source, selector],
            { timeout: 10000 },
          );
        } catch (e) {
          const shown = await page.locator('#smsgw-send-sms-analysis').innerText();
          throw new Error(`${selector} never matched ${re}: the dialog shows ${JSON.stringify(shown)}`, {
            cause: e,
          });
        }
      };
      // What the guard has left today (the tests before counted sends against the day's limit of 100).
      const left = async (): Promise<number> => {
        const r = await page.evaluate(async (id) => {
          const res = await fetch(`smsgw-config/${id}/budget`);
          return (await res.json()) as { windows: { window: string; count: number; limit: number }[] };
        }, gateway);
        const day = r.windows.find((w) => w.window === 'day');
        assert.ok(day, `no day window: ${JSON.stringify(r)}`);
        assert.equal(day.limit, 100);
        assert.equal(r.windows.length, 1, 'only a daily limit is set');
        return day.limit - day.count;
      };
      const COST = '#smsgw-send-sms-analysis .smsgw-cost';
      const UCS2 = '#smsgw-send-sms-analysis .smsgw-ucs2';
      const REPLACED = '#smsgw-send-sms-analysis .smsgw-replaced';
      if (await page.isChecked('#node-input-replaceLookalikes'))
        await page.uncheck('#node-input-replaceLookalikes');
      // Three recipients, split as the spending guard splits them (comma and semicolon).
      await setTypedString(page, 'node-input-recipient', '+4917012345678, +4917012345679; +4917012345670');
      await setTypedString(page, 'node-input-text', 'It’s ok');
      await seen(/UCS-2 · 1 segment · 63 characters left/);
      await seen(/^’ at 3 forces UCS-2: 70 characters per SMS instead of 160$/, UCS2);
      await seen(new RegExp(`^1 segment x 3 recipients = 3 of today's ${await left()} left$`), COST);
      assert.equal(
        await page.locator(REPLACED).count(),
        0,
        'nothing is replaced while the box is not ticked',
      );
      // Ticked: the text as the node will send it (GSM-7) and which characters it replaces by what.
      await page.check('#node-input-replaceLookalikes');
      await seen(/GSM-7 · 1 segment · 153 characters left/);
      await seen(/^1 character replaced with its GSM-7 look-alike: ’ → ' at 3$/, REPLACED);
      assert.equal(await page.locator(UCS2).count(), 0, 'no character forces UCS-2 any more');
      // Letters are never replaced: they stay listed as forcing UCS-2, beside the replaced punctuation.
      await setTypedString(page, 'node-input-text', 'Łódź – ok…');
      await seen(/^2 characters replaced with GSM-7 look-alikes: – → - at 6, … → \.\.\. at 10$/, REPLACED);
      await seen(/^Ł at 1, ó at 2, ź at 4 force UCS-2: 70 characters per SMS instead of 160$/, UCS2);
      // Two segments to three recipients: six of what the day has left.
      await setTypedString(page, 'node-input-text', 'It’s ' + 'a'.repeat(156));
      await seen(/GSM-7 · 2 segments/);
      await seen(new RegExp(`^2 segments x 3 recipients = 6 of today's ${await left()} left$`), COST);
      // Recipients from the msg: the cost per recipient only.
      await page.evaluate(() => {
        const $ = (window as unknown as { $: (s: string) => { typedInput(...a: string[]): unknown } }).$;
        $('#node-input-recipient').typedInput('type', 'msg');
        $('#node-input-recipient').typedInput('value', 'recipient');
      });
      await seen(/^2 segments per recipient$/, COST);
      // A configuration without a spending guard (the budget route answers so, as tested in the node tests): the
      // cost without a "left" part.
      await page.route('**/smsgw-config/*/budget', (route) =>
        route.fulfill({ json: { enabled: false, windows: [] } }),
      );
      try {
        await setTypedString(page, 'node-input-recipient', '+4917012345678');
        await seen(/^2 segments x 1 recipient = 2$/, COST);
      } finally {
        await page.unroute('**/smsgw-config/*/budget');
      }
    } finally {
      // A dialog left open would block every later test.
      await page.click('#node-dialog-cancel');
      await page.waitForSelector('#node-dialog-cancel', { state: 'detached' });
    }
  });

  it('shows the recipients as they will be sent (Default country) and names the ones the node would refuse', async function () {
    await page.click('#red-ui-tab-' + TAB + ' a');
    await openEditDialog(page, sendId);
    const info = page.locator('.smsgw-recipients');
    const shows = (state: string, text: string) =>
      page.waitForFunction(
        ([s, t]) => {
          const el = document.querySelector('.smsgw-recipients');
          return el?.getAttribute('data-state') === s && el.textContent?.trim() === t;
        },
        [state, text],
        { timeout: 10000 },
      );
    // off by default: a national number is sent as given, nothing to show
    await setTypedString(page, 'node-input-recipient', '0170 1234567');
    await page.waitForFunction(
      () => document.querySelector('.smsgw-recipients')?.getAttribute('data-state') === 'ok',
      undefined,
      { timeout: 10000 },
    );
    assert.equal(await info.isVisible(), false);
    await setTypedString(page, 'node-input-recipient', '0170 1234567, abc');
    await shows('bad', 'Not a phone number: "abc"');

    // Default country DE in the gateway configuration's Messages tab
    const edit = page.locator('#node-input-btn-gateway-edit');
    if ((await edit.count()) > 0) await edit.click();
    else await page.click('#node-input-lookup-gateway');
    await page.waitForSelector('#node-config-input-baseUrl', { state: 'attached' });
    await configTab(page, 'messages');
    assert.equal(await page.isChecked('#node-config-input-checkRecipients'), true);
    await page.fill('#node-config-input-defaultCountry', 'DE');
    await page.click('#node-config-dialog-ok');
    await page.waitForSelector('#node-config-input-baseUrl', { state: 'detached' });

    await shows('bad', 'Not a phone number: "abc" (national numbers are read as DE)');
    await page.locator('#node-input-recipient + div input.red-ui-typedInput-input').fill('');
    await page
      .locator('#node-input-recipient + div input.red-ui-typedInput-input')
      .pressSequentially('0170 1234567', { delay: 20 });
    await shows('normalised', 'Sent as: +491701234567');
    assert.equal(await info.isVisible(), true);
    await page.waitForTimeout(300);
    await snap(page, 'recipients.png');
    await setTypedString(page, 'node-input-recipient', '+4917012345678');
    await page.click('#node-dialog-ok');
    await page.waitForSelector('#node-dialog-ok', { state: 'detached' });
    // deploys the changed configuration: the tests after this one start from a clean flow
    await deploy(page);
  });

  it('lists the example flows under Import > Examples (and GET /library/examples/flows/<module>)', async function () {
    const shipped = listExamples()
      .map((e) => e.name)
      .sort();
    assert.deepEqual(await listServedExamples(stack.nodeRed.url, MODULE), shipped);

    await page.click('#red-ui-header-button-sidemenu');
    await page.click('#menu-item-import');
    await page.click('#red-ui-tab-red-ui-clipboard-dialog-import-tab-examples a');
    const tree = page.locator('#red-ui-clipboard-dialog-import-tab-examples');
    await tree.locator('.red-ui-treeList-label-text', { hasText: MODULE }).first().click();
    for (const name of shipped) {
      const leaf = name.split('/').pop()!;
      await tree.locator('.red-ui-treeList-label-text', { hasText: leaf }).first().waitFor({ timeout: 5000 });
    }
    await page.keyboard.press('Escape');
    const cancel = page.locator('.ui-dialog:visible button', { hasText: /cancel/i });
    if (await cancel.count()) await cancel.first().click();
  });

  it('runs an example flow against the emulator', async function () {
    const examples = examplesForDeploy(stack.emulator.url);
    const firstTab = examples.find((n) => n.type === 'tab');
    assert.ok(firstTab, 'the examples have no tab');
    await page.click(`#red-ui-tab-${firstTab.id} a`);
    const injects = examples.filter((n) => n.type === 'inject' && n.z === firstTab.id);
    assert.ok(injects.length > 0, `example tab "${String(firstTab.label)}" has no inject node to start it`);
    // start from an empty debug sidebar so it shows this example's messages only
    await page.evaluate(() => {
      (window as unknown as { RED: { actions: { invoke(a: string): void } } }).RED.actions.invoke(
        'core:clear-debug-messages',
      );
    });
    for (const n of injects) await page.click(`[id="${n.id}"] .red-ui-flow-node-button`);
    const ours = examples.filter((n) => n.z === firstTab.id && n.type.startsWith('smsgw-'));
    await page.waitForSelector(
      ours.map((n) => `[id="${n.id}"] .red-ui-flow-node-status-dot-green`).join(', '),
      { timeout: 20000 },
    );
    await page.waitForTimeout(1000);
    const red = await page
      .locator(
        ours.map((n) => `[id="${n.id}"] [class*="red-ui-flow-node-status-"][class$="-red"]`).join(', '),
      )
      .count();
    assert.equal(red, 0, 'a node of the example shows a red status');
    // README step 1 says what the sidebar shows first: the whole msg, collapsed, under this heading
    const sent = page.locator('.red-ui-debug-msg', { hasText: 'node: sent' }).first();
    await sent.waitFor({ timeout: 15000 });
    const heading = (await sent.locator('.red-ui-debug-msg-topic').innerText()).trim();
    const step1 = /^1\. \*\*Send\.\*\*[\s\S]*?(?=^2\. )/m.exec(readFileSync(join(ROOT, 'README.md'), 'utf8'));
    assert.ok(step1, 'README has no step "1. **Send.**"');
    assert.ok(
      step1[0].replace(/\s+/g, ' ').includes(`\`${heading}\``),
      `README step 1 does not show what the debug sidebar shows: ${heading}`,
    );
    // open the message and its payload in the debug sidebar, as someone curious would
    const handles = page.locator('.red-ui-debug-msg').first().locator('.red-ui-debug-msg-object-handle');
    if (await handles.count()) {
      await handles.first().click();
      const payload = page
        .locator('.red-ui-debug-msg')
        .first()
        .locator('.red-ui-debug-msg-object-entry', { hasText: 'payload' })
        .locator('.red-ui-debug-msg-object-handle')
        .first();
      if (await payload.count()) await payload.click();
    }
    // the "Successfully deployed/injected" toasts fade by themselves; keep them out of the picture
    await page
      .locator('.red-ui-notification')
      .first()
      .waitFor({ state: 'hidden', timeout: 10000 })
      .catch(() => undefined);
    await page.mouse.move(600, 600);
    await snap(page, 'example-flow.png');
  });

  it('leaves the flow unchanged when a dialog with parameter rows is opened and closed with Done', async function () {
    const pickers = ['smsgw-legacy-send-text', 'smsgw-customer', 'smsgw-query-jobs'];
    const nodes = examplesForDeploy(stack.emulator.url).filter((n) => pickers.includes(n.type));
    assert.equal(new Set(nodes.map((n) => n.type)).size, pickers.length, 'an example of each picker node');
    const state = (id: string) =>
      page.evaluate((nodeId) => {
        const RED = (
          window as unknown as {
            RED: { nodes: { node(id: string): { changed?: boolean }; dirty(): boolean } };
          }
        ).RED;
        return { changed: RED.nodes.node(nodeId).changed === true, dirty: RED.nodes.dirty() };
      }, id);
    for (const n of nodes) {
      assert.deepEqual(await state(n.id), { changed: false, dirty: false }, `before ${n.type}`);
      await page.click(`#red-ui-tab-${String(n.z)} a`);
      await openEditDialog(page, n.id);
      // the picker and its rows come from the operations endpoint and are drawn together
      await page.waitForSelector('#node-input-operation option', { state: 'attached', timeout: 10000 });
      await page.click('#node-dialog-ok');
      await page.waitForSelector('#node-dialog-ok', { state: 'hidden' });
      assert.deepEqual(await state(n.id), { changed: false, dirty: false }, `after Done on ${n.type}`);
    }
  });

  it('legacy send: labels instead of wire names, a list for the SMS type, the segment counter and its warning', async function () {
    const node = examplesForDeploy(stack.emulator.url).find(
      (n) => n.type === 'smsgw-legacy-send-text' && n.operation === 'SendText',
    );
    assert.ok(node, 'an example has a legacy SendText node');
    await page.click(`#red-ui-tab-${String(node.z)} a`);
    await openEditDialog(page, node.id);
    await page.waitForSelector('#smsgw-legacy-send-text-params input[data-param="SMSText"]', {
      state: 'attached',
      timeout: 10000,
    });
    const labels = await page.$$eval('#smsgw-legacy-send-text-params label', (ls) =>
      ls.map((l) => (l.textContent ?? '').trim()),
    );
    assert.deepEqual(labels, ['Caption', 'Sender', 'Recipient', 'Text', 'SMS type', 'Send at']);
    const placeholders = await page.$$eval('#smsgw-legacy-send-text-params input[data-param]', (is) =>
      is.map((i) => i.getAttribute('placeholder') ?? ''),
    );
    assert.ok(!placeholders.some((p) => /^(string|int|dateTime)\b/.test(p)), placeholders.join(' | '));
    // The SMS type: the example's "1" as saved, and a list offering the spec's codes with their names
    const smsType = (fn: string, arg?: string) =>
      page.evaluate(
        ([f, a]) => {
          const $ = (window as unknown as { $: (s: string) => { typedInput(...x: string[]): unknown } }).$;
          const field = $('#smsgw-legacy-send-text-params input[data-param="SmsTyp"]');
          return (a === undefined ? field.typedInput(f!) : field.typedInput(f!, a)) as string;
        },
        [fn, arg] as const,
      );
    assert.deepEqual([await smsType('type'), await smsType('value')], ['str', '1']);
    await smsType('type', 'enum');
    await smsType('value', '18');
    const options = await page.$$eval('.red-ui-typedInput-option-label', (os) =>
      os.map((o) => (o.textContent ?? '').trim()),
    );
    assert.ok(options.includes('18 HighQuality (Sender is used)'), options.join(' | '));
    // The segment counter under the text, and the length check of the chosen SMS type as the node makes it
    const info = page.locator('#smsgw-legacy-send-text-params .smsgw-text-analysis');
    await setTypedString(page, 'smsgw-param-3', 'a'.repeat(200));
    await page.waitForFunction(
      () =>
        /2 segments: SmsTyp 18 \(HighQuality\) allows 1 segment; SmsTyp 19 \(HighQualityLong\) allows up to 10/.test(
          document.querySelector('#smsgw-legacy-send-text-params .smsgw-too-long')?.textContent ?? '',
        ),
      undefined,
      { timeout: 10000 },
    );
    assert.match(await info.innerText(), /GSM-7 · 2 segments · 106 characters left/);
    await page.click('#node-dialog-cancel');
    await page.waitForSelector('#node-dialog-cancel', { state: 'hidden' });
  });

  it("any operation: the dialog offers the chosen service's operations, shows a known one's parameters, a path row only for another path", async function () {
    const node = examplesForDeploy(stack.emulator.url).find(
      (n) => n.type === 'smsgw-call' && n.operation === 'QueryJobs',
    );
    assert.ok(node, 'the "Any operation" example has a QueryJobs node');
    await page.click(`#red-ui-tab-${String(node.z)} a`);
    await openEditDialog(page, node.id);
    const offered = () =>
      page.$$eval('#smsgw-call-operations option', (os) => os.map((o) => (o as HTMLOptionElement).value));
    await page.waitForSelector('#smsgw-call-operations option', { state: 'attached', timeout: 10000 });
    const information = await offered();
    assert.ok(
      information.includes('QueryJobs') && information.includes('QueryAccountBalance'),
      String(information),
    );
    assert.ok(!information.includes('SendSMS'), "only the chosen service's operations");
    // The known operation's parameters, from the catalogue.
    assert.match((await page.textContent('#smsgw-call-params')) ?? '', /StartDate\??: dateTime/);
    assert.equal(await page.isVisible('#smsgw-call-path-row'), false);
    await page.selectOption('#node-input-service', 'send');
    assert.ok((await offered()).includes('SendSMS'));
    // A name the catalogue does not know: said so, its parameters are the user's.
    await page.fill('#node-input-operation', 'GetTariff');
    assert.match((await page.textContent('#smsgw-call-params')) ?? '', /Not in the catalogue/);
    await page.selectOption('#node-input-service', 'path');
    assert.equal(await page.isVisible('#smsgw-call-path-row'), true);
    assert.deepEqual(await offered(), []);
    await page.click('#node-dialog-cancel');
    await page.waitForSelector('#node-dialog-cancel', { state: 'hidden' });
  });

  it('a second inbound SMS trigger on a gateway with one already: no warning, both are listeners', async function () {
    const existing = examplesForDeploy(stack.emulator.url).find((n) => n.type === 'smsgw-inbound');
    assert.ok(existing, 'an example has an inbound SMS trigger');
    await page.click('#red-ui-tab-' + TAB + ' a');
    const id = await addNode(page, 'smsgw-inbound', 400, 300);
    await openEditDialog(page, id);
    await page.waitForSelector('#node-input-gateway option', { state: 'attached' });
    await page.selectOption('#node-input-gateway', String(existing.gateway));
    // The dialog once warned here that the two would split the messages; now each gets every one.
    await page.waitForTimeout(300);
    assert.equal(await page.locator('.smsgw-shared-queue').count(), 0);
    assert.ok(!/Another inbound SMS trigger/.test((await page.textContent('.red-ui-editor')) ?? ''));
    await page.click('#node-dialog-cancel');
    await page.waitForSelector('#node-dialog-cancel', { state: 'detached' });
  });

  it('the delivery reports palette label fits one line; its dialog edits Final states only when they are used', async function () {
    // "delivery reports" took two lines in the palette; its palette label now takes one, as inject's does
    const height = (type: string) =>
      page
        .locator(`.red-ui-palette-node[data-palette-type="${type}"]`)
        .evaluate((e) => e.getBoundingClientRect().height);
    assert.equal(await height('smsgw-dlr'), await height('inject'));

    await page.click('#red-ui-tab-' + TAB + ' a');
    const id = await addNode(page, 'smsgw-dlr', 400, 380);
    await openEditDialog(page, id);
    assert.equal(await page.isChecked('#node-input-finalOnly'), false);
    assert.equal(await page.isDisabled('#node-input-finalStates'), true);
    await page.check('#node-input-finalOnly');
    assert.equal(await page.isDisabled('#node-input-finalStates'), false);
    await page.click('#node-dialog-cancel');
    await page.waitForSelector('#node-dialog-cancel', { state: 'detached' });
  });

  it('the palette search finds a node by its type (smsgw-ask) as well as by its label', async function () {
    // typed as a user types: the search box filters on key presses
    const search = page.locator('#red-ui-palette-search input');
    await search.click();
    await search.pressSequentially('smsgw-ask');
    const ask = page.locator('.red-ui-palette-node[data-palette-type="smsgw-ask"]');
    await ask.waitFor({ state: 'visible' });
    await page
      .locator('.red-ui-palette-node[data-palette-type="smsgw-send-sms"]')
      .waitFor({ state: 'hidden' });
    const shown = await page.$$eval('.red-ui-palette-node[data-palette-type^="smsgw-"]', (els) =>
      els
        .filter((e) => (e as HTMLElement).offsetParent !== null)
        .map((e) => e.getAttribute('data-palette-type')),
    );
    assert.deepEqual(shown, ['smsgw-ask']);
    await clearPaletteSearch(page);
    await page
      .locator('.red-ui-palette-node[data-palette-type="smsgw-send-sms"]')
      .waitFor({ state: 'visible' });
  });

  it('sent nothing off this machine and raised no page errors', function () {
    // the editor asks the Flow Library catalogue for the palette manager; that is Node-RED's, not ours
    const unexpected = browser.blocked.filter((u) => !u.startsWith('https://catalogue.nodered.org/'));
    assert.deepEqual(unexpected, []);
    const http = browser.errors.filter((e) => e.startsWith('HTTP '));
    const others = browser.errors.filter(
      (e) =>
        !e.startsWith('HTTP ') && !/Failed to load resource|ERR_FAILED|ERR_NAME_NOT_RESOLVED|net::/.test(e),
    );
    assert.deepEqual([...http, ...others], []);
  });
});
