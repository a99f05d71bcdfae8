/**
 * A gateway configuration without user or password, in a real browser: the warning triangle on the
 * configuration and the nodes using it, whether it was deployed before the editor opened, imported (as an
 * example is) or created in a dialog; it goes once the account is typed, stays right after a deploy and a
 * reload. The dialog warns about a short password and refuses a password in the proxy URL.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { openBrowser, type Browser } from './browser';
import { openEditDialog } from './editor';
import { nodeRedVersion, outDir, startStack, type Stack } from './stack';

const TAB = 'acc0000000000001';

type RedWindow = {
  RED: {
    nodes: { node(id: string): { valid?: boolean; validationErrors?: string[] } | null };
    view: { importNodes(nodes: unknown[], opts?: Record<string, unknown>): void };
  };
};

const sendNode = (id: string, gateway: string, y: number): Record<string, unknown> => ({
  id,
  type: 'smsgw-send-sms',
  z: TAB,
  name: id,
  gateway,
  // every field of the node's defaults, as a saved node has them
  output: 'payload',
  operation: 'SendSMS',
  recipient: '+4917012345678',
  recipientType: 'str',
  text: 'hello',
  textType: 'str',
  sender: '',
  senderType: 'str',
  caption: 'topic',
  captionType: 'msg',
  smsType: 'Standard',
  smsTypeType: 'smstype',
  sendDate: '',
  sendDateType: 'str',
  jobPriority: '',
  jobPriorityType: 'num',
  track: false,
  trackTimeout: 1440,
  outputs: 1,
  x: 300,
  y,
  wires: [[]],
});

/** The editor's verdict on a node: valid, and what the triangle's tooltip lists. */
async function validity(page: Page, id: string): Promise<{ valid: boolean | undefined; errors: string[] }> {
  return page.evaluate((nodeId) => {
    const n = (window as unknown as RedWindow).RED.nodes.node(nodeId);
    return { valid: n?.valid, errors: n?.validationErrors ?? [] };
  }, id);
}

async function triangle(page: Page, id: string): Promise<boolean> {
  return (await page.locator(`[id="${id}"] .red-ui-flow-node-error:visible`).count()) > 0;
}

async function configTab(page: Page, tab: 'connection' | 'security'): Promise<void> {
  await page.waitForTimeout(450); // RED.tabs takes two clicks within 400 ms as a double click
  await page.click(`#smsgw-config-tabs a[href="#smsgw-config-tab-${tab}"]`);
  await page.waitForSelector(`#smsgw-config-tab-${tab}`, { state: 'visible' });
}

describe(`a gateway configuration without an account, in Chromium: Node-RED ${nodeRedVersion}`, function () {
  let stack: Stack;
  let browser: Browser;
  let page: Page;

  before(async function () {
    stack = await startStack('account', (url) => [
      { id: TAB, type: 'tab', label: 'Accounts', disabled: false, info: '' },
      {
        id: 'cfgok',
        type: 'smsgw-config',
        name: 'With account',
        baseUrl: url,
        service: 'gateway',
        transport: 'soap11',
        credentials: { user: 'demo', password: 'demo-password' },
      },
      {
        id: 'cfgnone',
        type: 'smsgw-config',
        name: 'Without account',
        baseUrl: url,
        service: 'gateway',
        transport: 'soap11',
      },
      sendNode('sendok', 'cfgok', 80),
      sendNode('sendnone', 'cfgnone', 160),
    ]);
    browser = await openBrowser();
    page = browser.page;
    await page.goto(`${stack.nodeRed.url}/`);
    await page.waitForSelector('#red-ui-palette-container .red-ui-palette-node', { timeout: 60000 });
    await page.click(`#red-ui-tab-${TAB} a`);
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

  it('a deployed configuration without user or password shows the triangle, and so does its node', async function () {
    await page.waitForFunction(
      () => (window as unknown as RedWindow).RED.nodes.node('cfgnone')?.valid === false,
      undefined,
      { timeout: 15000 },
    );
    const none = await validity(page, 'cfgnone');
    assert.ok(
      none.errors.some((e) => /No user\/password/.test(e)),
      none.errors.join('; '),
    );
    assert.equal((await validity(page, 'cfgok')).valid, true);
    await page.waitForSelector('[id="sendnone"] .red-ui-flow-node-error', { state: 'visible' });
    assert.equal(await triangle(page, 'sendnone'), true);
    assert.equal(await triangle(page, 'sendok'), false);
  });

  it('an imported configuration without credentials (as an example ships) shows it at once', async function () {
    await page.evaluate(
      ([cfg, node]) => {
        (window as unknown as RedWindow).RED.view.importNodes([cfg, node], { generateIds: false });
      },
      [
        {
          id: 'cfgnew',
          type: 'smsgw-config',
          name: 'Imported',
          baseUrl: stack.emulator.url,
          service: 'gateway',
        },
        sendNode('sendnew', 'cfgnew', 240),
      ],
    );
    // the import leaves the nodes selected and following the mouse until a click drops them
    await page.mouse.click(700, 500);
    await page.waitForSelector('[id="sendnew"] .red-ui-flow-node-error', {
      state: 'visible',
      timeout: 10000,
    });
    assert.equal((await validity(page, 'cfgnew')).valid, false);
  });

  it('typing the account in the dialog removes the triangle; a short password and a proxy password are warned about', async function () {
    await openEditDialog(page, 'sendnew');
    // the pencil beside the gateway field (its id differs between Node-RED versions)
    await page
      .locator('#node-input-btn-gateway-edit, #node-input-edit-gateway, #node-input-lookup-gateway')
      .first()
      .click();
    await page.waitForSelector('#node-config-input-baseUrl', { state: 'visible' });
    // a password in the proxy URL: the field is marked
    await page.fill('#node-config-input-proxyUrl', 'http://alice:secret@127.0.0.1:3128');
    await page.press('#node-config-input-proxyUrl', 'Tab');
    assert.equal(await page.locator('#node-config-input-proxyUrl.input-error').count(), 1);
    await page.fill('#node-config-input-proxyUrl', 'http://alice@127.0.0.1:3128');
    await page.press('#node-config-input-proxyUrl', 'Tab');
    assert.equal(await page.locator('#node-config-input-proxyUrl.input-error').count(), 0);
    await page.fill('#node-config-input-proxyUrl', '');
    await configTab(page, 'security');
    await page.fill('#node-config-input-user', 'demo');
    await page.fill('#node-config-input-password', 'p');
    assert.equal(
      await page.isVisible('#smsgw-config-short-password'),
      true,
      'a 1-character password is warned about',
    );
    await page.fill('#node-config-input-password', 'demo-password');
    assert.equal(await page.isVisible('#smsgw-config-short-password'), false);
    await page.click('#node-config-dialog-ok');
    await page.waitForSelector('#node-config-input-baseUrl', { state: 'detached' });
    await page.click('#node-dialog-ok');
    await page.waitForSelector('#node-dialog-ok', { state: 'detached' });
    assert.equal((await validity(page, 'cfgnew')).valid, true);
    assert.deepEqual(await validity(page, 'sendnew'), { valid: true, errors: [] });
    await page.waitForSelector('[id="sendnew"] .red-ui-flow-node-error', { state: 'hidden', timeout: 10000 });
  });

  it('after a deploy and a reload the runtime tells which configuration lacks its account', async function () {
    await page.click('#red-ui-header-button-deploy');
    // "cfgnone" is still incomplete: Node-RED asks before deploying improperly configured nodes
    const confirm = page.locator(
      '#red-ui-deploy-dialog-confirm-deploy-deploy, .ui-dialog:visible button.primary',
    );
    await confirm.first().click({ timeout: 10000 });
    await page.waitForSelector('#red-ui-header-button-deploy.disabled', { timeout: 20000 });
    await page.reload();
    await page.waitForSelector('#red-ui-palette-container .red-ui-palette-node', { timeout: 60000 });
    await page.click(`#red-ui-tab-${TAB} a`);
    await page.waitForFunction(
      () => (window as unknown as RedWindow).RED.nodes.node('cfgnone')?.valid === false,
      undefined,
      { timeout: 15000 },
    );
    assert.equal((await validity(page, 'cfgnew')).valid, true, 'the account typed before the deploy is kept');
    assert.equal((await validity(page, 'cfgok')).valid, true);
    assert.equal(await triangle(page, 'sendnone'), true);
    assert.equal(await triangle(page, 'sendnew'), false);
  });

  it('raised no page errors and sent nothing off this machine', function () {
    // the editor asks the Flow Library catalogue for the palette manager; that is Node-RED's, not ours
    assert.deepEqual(
      browser.blocked.filter((u) => !u.startsWith('https://catalogue.nodered.org/')),
      [],
    );
    // (its blocked fetch is logged as a console error)
    assert.deepEqual(
      browser.errors.filter((e) => !/^console: Failed to load resource: net::ERR_FAILED$/.test(e)),
      [],
    );
  });
});
