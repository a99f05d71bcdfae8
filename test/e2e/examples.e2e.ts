/**
 * The examples as a user gets them, in a real Node-RED and Chromium (4.1 here, 5 in the version matrix):
 * imported from Import > Examples, every gateway configuration and smsgw node opened and saved with Done
 * without changing a field (the configuration gets this test's emulator and the account, as a user types them),
 * deployed. flows.json then holds every node as the example has it, a send to "abc" is refused with VALIDATION
 * (an unticked "Check recipients" once let it go out and be charged), and no two nodes of an example
 * overlap on the canvas, boxes, labels and statuses included, once the example ran.
 * The same flows written by hand without every field that is at its default (as an older version or a person
 * writes them) go through the same dialogs: each dialog shows the defaults, and they come out with every one.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { listExamples, type FlowNode } from '../../scripts/lib/flows';
import { startMqttBroker, type RunningBroker } from '../../scripts/lib/mqtt-broker';
import { defaultValues } from '../nodes/editor-definitions';
import { openBrowser, type Browser } from './browser';
import { configTab, editGatewayConfig, showSidebarTab } from './editor';
import { CONFIG_TYPE, MODULE, NODE_TYPES, nodeRedVersion, outDir, startStack, type Stack } from './stack';

const OURS = new Set<string>(NODE_TYPES);
const HAND = ' (written by hand)';
const PROBE_TAB = 'e2eprobe00000001';
const DEMO = { user: 'demo', password: 'demo-password' };

/** A node as the editor holds it (RED.nodes), with its tab's label. */
interface Drawn {
  id: string;
  type: string;
  z: string;
  tab: string;
  x: number;
  y: number;
  gateway?: string;
}

type RedWindow = {
  RED: {
    nodes: {
      eachNode(cb: (n: Record<string, unknown>) => void): void;
      eachConfig(cb: (n: Record<string, unknown>) => void): void;
      workspace(id: string): { label: string } | undefined;
    };
    workspaces: { show(id: string): void };
  };
  $: (s: string) => { val(): unknown; attr(a: string): unknown; length: number; prop(p: string): unknown };
};

const hash = (salt: string, id: string): string =>
  createHash('sha1').update(`${salt}\0${id}`).digest('hex').slice(0, 16);

/** Every string equal to a key of `map` replaced (ids appear in wires, z, scope and config references). */
function remap(value: unknown, map: Map<string, string>): unknown {
  if (typeof value === 'string') return map.get(value) ?? value;
  if (Array.isArray(value)) return value.map((v) => remap(v, map));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, remap(v, map)]));
  return value;
}

/** Our nodes' fields that the example holds at their default: what a flow written by hand leaves out. */
function atDefault(n: FlowNode): string[] {
  if (!OURS.has(n.type)) return [];
  const defaults = defaultValues(n.type);
  return Object.keys(defaults).filter((k) => k in n && isDeepStrictEqual(n[k], defaults[k]));
}

/**
 * Every example once more, as a person (or an older version) writes it: new ids, "(written by hand)" tabs, and
 * our nodes without the fields at their default. A probe in the Alarm tab sends to "abc" through its send node.
 */
function handWritten(): { nodes: FlowNode[]; map: Map<string, string> } {
  const map = new Map<string, string>();
  const all = listExamples().flatMap((e) => e.nodes);
  for (const n of all) map.set(n.id, hash('hand', n.id));
  const nodes: FlowNode[] = [];
  const seen = new Set<string>();
  for (const n of all) {
    if (seen.has(n.id)) continue; // the gateway configuration every example shares
    seen.add(n.id);
    const copy = remap(n, map) as FlowNode;
    for (const k of atDefault(n)) delete copy[k];
    if (copy.type === 'tab') copy.label = `${String(copy.label)}${HAND}`;
    nodes.push(copy);
  }
  const alarm = listExamples().find((e) => e.name === 'Alarm to SMS')!.nodes;
  const tab = map.get(alarm.find((n) => n.type === 'tab')!.id)!;
  const alarmSend = map.get(alarm.find((n) => n.type === 'smsgw-send-sms')!.id)!;
  nodes.push(...probe('hand', tab, alarmSend, 'probe: written by hand', 300));
  return { nodes, map };
}

/** inject {recipient: "abc"} into `sendId`; a Catch of that node shows msg.error.code in the debug sidebar. */
function probe(salt: string, z: string, sendId: string, label: string, y: number): FlowNode[] {
  const id = (s: string): string => hash(salt, s);
  return [
    {
      id: id('inject'),
      type: 'inject',
      z,
      name: 'send to abc',
      props: [{ p: 'payload' }, { p: 'recipient', v: 'abc', vt: 'str' }],
      repeat: '',
      crontab: '',
      once: false,
      onceDelay: 0.1,
      topic: '',
      payload: 'probe',
      payloadType: 'str',
      x: 170,
      y,
      wires: [[sendId]],
    },
    {
      id: id('catch'),
      type: 'catch',
      z,
      name: 'probe errors',
      scope: [sendId],
      uncaught: false,
      x: 170,
      y: y + 60,
      wires: [[id('debug')]],
    },
    {
      id: id('debug'),
      type: 'debug',
      z,
      name: label,
      active: true,
      tosidebar: true,
      console: false,
      tostatus: false,
      complete: 'error.code',
      targetType: 'msg',
      statusVal: '',
      statusType: 'auto',
      x: 420,
      y: y + 60,
      wires: [],
    },
  ];
}

/** The examples' own gateway configuration (kept by the first import, shared by the copies). */
function exampleProbe(): FlowNode[] {
  const alarm = listExamples().find((e) => e.name === 'Alarm to SMS')!.nodes;
  const send = alarm.find((n) => n.type === 'smsgw-send-sms')!;
  const sendId = hash('example', 'send');
  return [
    { id: PROBE_TAB, type: 'tab', label: 'probe', disabled: false, info: '' },
    { ...send, id: sendId, z: PROBE_TAB, name: 'probe send', x: 420, y: 120, wires: [[]] },
    ...probe('example', PROBE_TAB, sendId, 'probe: example', 120),
  ];
}

async function importFromExamples(page: Page, name: string): Promise<void> {
  await page.click('#red-ui-header-button-sidemenu');
  await page.click('#menu-item-import');
  await page.waitForTimeout(450); // two tab clicks within 400 ms count as a double click
  await page.click('#red-ui-tab-red-ui-clipboard-dialog-import-tab-examples a');
  const tree = page.locator('#red-ui-clipboard-dialog-import-tab-examples');
  await tree.locator('.red-ui-treeList-label-text', { hasText: MODULE }).first().click();
  const leaf = tree.locator('.red-ui-treeList-label-text', { hasText: name.split('/').pop()! }).first();
  await leaf.click();
  await page.click('#red-ui-clipboard-dialog-ok');
  // From the second example on, the shared gateway configuration exists already: "Import copy" keeps it.
  const copy = page.locator('.red-ui-notification button', { hasText: /import copy/i });
  await copy.waitFor({ timeout: 2000 }).then(
    () => copy.click(),
    () => undefined,
  );
  await page.waitForSelector('#red-ui-clipboard-dialog-ok', { state: 'hidden' });
}

async function importFromClipboard(page: Page, flow: unknown[]): Promise<void> {
  await page.click('#red-ui-header-button-sidemenu');
  await page.click('#menu-item-import');
  // the dialog opens on the tab used last; RED.tabs takes two clicks within 400 ms as a double click
  await page.waitForTimeout(450);
  await page.click('#red-ui-tab-red-ui-clipboard-dialog-import-tab-clipboard a');
  const text = page.locator('#red-ui-clipboard-dialog-import-text');
  await text.waitFor({ state: 'visible' });
  await text.fill(JSON.stringify(flow));
  await text.press('End'); // the dialog checks the text on keyup, a moment later
  await page.waitForSelector('#red-ui-clipboard-dialog-ok:not(.ui-state-disabled)', { timeout: 10000 });
  await page.click('#red-ui-clipboard-dialog-ok');
  await page.waitForSelector('#red-ui-clipboard-dialog-ok', { state: 'hidden' });
}

/** Every node the editor holds, with its tab's label. */
async function drawnNodes(page: Page): Promise<Drawn[]> {
  return page.evaluate(() => {
    const { RED } = window as unknown as RedWindow;
    const out: Drawn[] = [];
    RED.nodes.eachNode((n) => {
      const z = String(n.z ?? '');
      out.push({
        id: String(n.id),
        type: String(n.type),
        z,
        tab: RED.nodes.workspace(z)?.label ?? '',
        x: Number(n.x),
        y: Number(n.y),
        ...(typeof n.gateway === 'string' ? { gateway: n.gateway } : {}),
      });
    });
    return out;
  });
}

/** Shows a flow tab (seventeen of them do not fit the tab bar: through the editor's API, as its menu does). */
async function showTab(page: Page, z: string): Promise<void> {
  await page.evaluate((id) => {
    (window as unknown as RedWindow).RED.workspaces.show(id);
  }, z);
  await page.waitForSelector(`#red-ui-tab-${z}.active`, { state: 'attached' });
}

async function openDialog(page: Page, node: Drawn): Promise<void> {
  await showTab(page, node.z);
  await page.dblclick(`[id="${node.id}"] .red-ui-flow-node`);
  await page.waitForSelector('#node-dialog-ok', { state: 'visible' });
  // the operation lists come from the package's catalogue endpoint: wait for them, as a person would
  if ((await page.locator('select#node-input-operation').count()) > 0)
    await page.waitForSelector('#node-input-operation option', { state: 'attached', timeout: 10000 });
}

/**
 * Which of `expected` (field → default) the open dialog does not show: a checkbox's tick, a field's value
 * (a typedInput keeps its value and type in the fields it was built on).
 */
async function notShown(page: Page, prefix: string, expected: Record<string, unknown>): Promise<string[]> {
  return page.evaluate(
    ([p, want]) => {
      const { $ } = window as unknown as RedWindow;
      const wrong: string[] = [];
      for (const [key, value] of Object.entries(want)) {
        const field = $(`#${p}-${key}`);
        if (field.length === 0) continue;
        const shown = field.attr('type') === 'checkbox' ? field.prop('checked') : field.val();
        if (String(shown) !== String(value)) wrong.push(`${key}: ${JSON.stringify(shown)}`);
      }
      return wrong;
    },
    [prefix, expected] as const,
  );
}

async function readDebugCodes(page: Page, label: string): Promise<string[]> {
  return page
    .locator('.red-ui-debug-msg', { hasText: label })
    .evaluateAll((els) =>
      els.map((e) => (e.querySelector('.red-ui-debug-msg-payload')?.textContent ?? '').trim()),
    );
}

/** What flows.json holds of a node, compared field by field with what the example says (baseUrl aside). */
function differences(saved: FlowNode, example: FlowNode, numbersAsText: boolean): string[] {
  const out: string[] = [];
  const keys = new Set([...Object.keys(defaultValues(example.type)), ...Object.keys(example)]);
  for (const k of ['id', 'z', 'wires', 'x', 'y', 'baseUrl']) keys.delete(k);
  for (const k of keys) {
    const want = example[k];
    const got = saved[k];
    // Node-RED saves a number typed (or shown) in a dialog field as its text, as for any node it edits
    const same =
      isDeepStrictEqual(got, want) || (numbersAsText && typeof want === 'number' && got === String(want));
    if (!same) out.push(`${k}: ${JSON.stringify(got)} (example: ${JSON.stringify(want)})`);
  }
  return out;
}

interface Box {
  what: string;
  part: string;
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/**
 * The parts of each node drawn on the canvas, as the browser renders them: its shape (the label is inside it),
 * its ports and its status (dot and text). Two nodes overlap when a part of one meets a part of the other.
 */
async function boxes(page: Page, z: string): Promise<Box[][]> {
  await showTab(page, z);
  // (no functions declared inside: the page gets the callback's source as the test's compiler wrote it)
  return page.evaluate(() => {
    const nodes: Box[][] = [];
    for (const g of document.querySelectorAll<SVGGElement>(
      '#red-ui-workspace-chart g.red-ui-flow-node-group',
    )) {
      const what = g.querySelector('.red-ui-flow-node-label')?.textContent ?? g.id;
      const parts: Box[] = [];
      const drawn: [string, Element | null][] = [
        ['box', g.querySelector(':scope > .red-ui-flow-node')],
        ['label', g.querySelector('.red-ui-flow-node-label')],
        ['status', g.querySelector('.red-ui-flow-node-status-group')],
        ...[...g.querySelectorAll('.red-ui-flow-port')].map((el): [string, Element] => ['port', el]),
      ];
      for (const [part, el] of drawn) {
        const r = el?.getBoundingClientRect();
        if (r && r.width > 0 && r.height > 0)
          parts.push({ what, part, left: r.left, top: r.top, right: r.right, bottom: r.bottom });
      }
      if (parts.length > 0) nodes.push(parts);
    }
    return nodes;
  });
}

function overlaps(nodes: Box[][]): string[] {
  const out: string[] = [];
  const at = (b: Box): string =>
    `"${b.what}" ${b.part} [${Math.round(b.left)}..${Math.round(b.right)} x ${Math.round(b.top)}..${Math.round(b.bottom)}]`;
  const meet = (a: Box, b: Box): boolean =>
    a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  for (let i = 0; i < nodes.length; i++)
    for (let j = i + 1; j < nodes.length; j++)
      for (const a of nodes[i]!) for (const b of nodes[j]!) if (meet(a, b)) out.push(`${at(a)} and ${at(b)}`);
  return out;
}

describe(`examples imported in Chromium, opened, saved and deployed: Node-RED ${nodeRedVersion}`, function () {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let broker: RunningBroker;
  const examples = listExamples();
  const hand = handWritten();
  let drawn: Drawn[] = [];
  let jobsBefore = 0;

  before(async function () {
    this.timeout(300000);
    broker = await startMqttBroker(0);
    stack = await startStack('examples');
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
    await broker?.stop();
  });

  it('imports every example from Import > Examples, and the same flows written by hand from the clipboard', async function () {
    this.timeout(180000);
    for (const e of examples) await importFromExamples(page, e.name);
    await importFromClipboard(page, [...hand.nodes, ...exampleProbe()]);
    drawn = await drawnNodes(page);
    for (const e of examples) {
      const ours = e.nodes.filter((n) => OURS.has(n.type) && n.type !== CONFIG_TYPE);
      for (const suffix of ['', HAND]) {
        const found = drawn.filter((d) => d.tab === `${e.name}${suffix}` && OURS.has(d.type));
        assert.equal(found.length, ours.length, `"${e.name}${suffix}": ${found.map((d) => d.type).join()}`);
      }
    }
  });

  it('opens and saves every gateway configuration and smsgw node with Done; the dialogs show the defaults of the fields a node lacks', async function () {
    this.timeout(600000);
    const configured = new Set<string>();
    const problems: string[] = [];
    const lacking = new Map<string, string[]>(); // hand-written node id -> the fields it lacks
    for (const n of hand.nodes) {
      const example = examples.flatMap((e) => e.nodes).find((x) => hash('hand', x.id) === n.id);
      if (example) lacking.set(n.id, atDefault(example));
    }
    const defaultsOf = (type: string, id: string): Record<string, unknown> => {
      const all = defaultValues(type);
      return Object.fromEntries((lacking.get(id) ?? []).map((k) => [k, all[k]]));
    };
    for (const node of drawn.filter((d) => OURS.has(d.type) && d.tab !== 'probe')) {
      await openDialog(page, node);
      for (const wrong of await notShown(page, 'node-input', defaultsOf(node.type, node.id)))
        problems.push(`${node.tab} ${node.type}: ${wrong}`);
      if (node.gateway && !configured.has(node.gateway)) {
        // as the examples' comment says: open the gateway configuration and enter the account
        configured.add(node.gateway);
        await editGatewayConfig(page);
        for (const wrong of await notShown(page, 'node-config-input', defaultsOf(CONFIG_TYPE, node.gateway)))
          problems.push(`${node.tab} ${CONFIG_TYPE}: ${wrong}`);
        await page.fill('#node-config-input-baseUrl', stack.emulator.url);
        await configTab(page, 'security');
        await page.fill('#node-config-input-user', DEMO.user);
        await page.fill('#node-config-input-password', DEMO.password);
        await page.click('#node-config-dialog-ok');
        await page.waitForSelector('#node-config-input-baseUrl', { state: 'detached' });
      }
      await page.click('#node-dialog-ok');
      await page.waitForSelector('#node-dialog-ok', { state: 'detached' });
    }
    assert.deepEqual(problems, []);
    const configs = new Set(
      examples.flatMap((e) => e.nodes.filter((n) => n.type === CONFIG_TYPE).map((n) => n.id)),
    );
    assert.equal(
      configured.size,
      2 * configs.size,
      'the examples’ gateway configurations and the hand-written ones',
    );
  });

  it('deploys: flows.json holds every example node as the example has it, and the hand-written ones with every default', async function () {
    // The Freezer example's MQTT broker configurations: this test's broker instead of 1883 on this machine.
    await page.evaluate((port) => {
      const { RED } = window as unknown as RedWindow;
      RED.nodes.eachConfig((n) => {
        if (n.type === 'mqtt-broker') {
          n.port = String(port);
          n.changed = true;
        }
      });
    }, broker.port);
    jobsBefore = (await stackJobs(stack)).length;
    const invalid = await deployAnyway(page);
    // the editor shows the deploy as done when Node-RED answered; the file may be written a moment later
    const file = join(stack.userDir, 'flows.json');
    for (let waited = 0; !existsSync(file) && waited < 10000; waited += 100) await page.waitForTimeout(100);
    const saved = JSON.parse(readFileSync(file, 'utf8')) as FlowNode[];
    const tabLabel = new Map(saved.filter((n) => n.type === 'tab').map((n) => [n.id, String(n.label)]));
    const problems: string[] = [];
    for (const e of examples) {
      for (const [suffix, asText] of [
        ['', false],
        [HAND, true],
      ] as const) {
        for (const example of e.nodes.filter((n) => OURS.has(n.type))) {
          // the hand-written copy refers to its own configuration
          const want = suffix ? (remap(example, hand.map) as FlowNode) : example;
          // Node-RED keeps a node's left edge when its label changes width on saving (x moves): by row
          const got =
            want.type === CONFIG_TYPE
              ? saved.find((s) => s.id === want.id)
              : saved
                  .filter(
                    (s) =>
                      s.type === want.type &&
                      s.y === want.y &&
                      tabLabel.get(String(s.z)) === `${e.name}${suffix}`,
                  )
                  .sort(
                    (a, b) => Math.abs(Number(a.x) - Number(want.x)) - Math.abs(Number(b.x) - Number(want.x)),
                  )[0];
          if (!got) {
            problems.push(`${e.name}${suffix}: ${want.type} at ${String(want.x)},${String(want.y)} missing`);
            continue;
          }
          for (const d of differences(got, want, asText))
            problems.push(`${e.name}${suffix}: ${want.type} ${String(want.name || want.id)}: ${d}`);
          if (want.type === CONFIG_TYPE) assert.equal(got.baseUrl, stack.emulator.url);
        }
      }
    }
    assert.deepEqual(problems, []);
    assert.deepEqual(invalid, [], 'Node-RED found nodes not properly configured');
  });

  it('refuses a send to "abc" with VALIDATION through both configurations, and nothing reaches the gateway', async function () {
    await showSidebarTab(page, 'debug');
    const hits: [string, string][] = [
      ['probe: written by hand', hash('hand', 'inject')],
      ['probe: example', hash('example', 'inject')],
    ];
    for (const [label, inject] of hits) {
      await pressInject(inject);
      await page.waitForFunction(
        (l) => [...document.querySelectorAll('.red-ui-debug-msg')].some((e) => e.textContent?.includes(l)),
        label,
        { timeout: 15000 },
      );
      assert.deepEqual(await readDebugCodes(page, label), ['"VALIDATION"'], label);
    }
    assert.equal((await stackJobs(stack)).length, jobsBefore, 'a job was created');
  });

  /** Presses every inject of the tab; waits until each smsgw node's status says `shows`, or 3 s passed. */
  async function run(z: string, shows: RegExp): Promise<void> {
    await showTab(page, z);
    for (const i of drawn.filter((d) => d.z === z && d.type === 'inject')) await pressInject(i.id);
    await page
      .waitForFunction(
        ([ids, source]) =>
          ids.every((id) =>
            new RegExp(source).test(
              document.querySelector(`[id="${id}"] .red-ui-flow-node-status-label`)?.textContent ?? '',
            ),
          ),
        [drawn.filter((d) => d.z === z && OURS.has(d.type)).map((d) => d.id), shows.source] as const,
        { timeout: 3000 },
      )
      .catch(() => undefined); // a node the injects do not reach shows what it has
    await page.waitForTimeout(300);
  }

  /** What an inject node's button does (POST /inject/:id): the button itself is Node-RED's, not under test. */
  async function pressInject(id: string): Promise<void> {
    const res = await fetch(`${stack.nodeRed.url}/inject/${id}`, { method: 'POST' });
    assert.equal(res.status, 200, `inject ${id}`);
  }

  const lock = (locked: boolean): Promise<Response> =>
    fetch(`${stack.emulator.url}/_emulator/lock`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ user: DEMO.user, locked }),
    });

  for (const e of examples) {
    it(`"${e.name}": no two nodes overlap once it ran, nor with the account locked (boxes, labels, statuses)`, async function () {
      const z = drawn.find((d) => d.tab === e.name)!.z;
      await run(z, /./);
      assert.deepEqual(overlaps(await boxes(page, z)), [], 'after a run');
      // README step 4: a locked account turns the nodes red with "auth failed: AccountLocked", a longer status
      await lock(true);
      try {
        await run(z, /AccountLocked/);
        assert.deepEqual(overlaps(await boxes(page, z)), [], 'with the account locked');
      } finally {
        await lock(false);
      }
    });
  }

  it('sent nothing off this machine and raised no page errors', function () {
    const unexpected = browser.blocked.filter((u) => !u.startsWith('https://catalogue.nodered.org/'));
    assert.deepEqual(unexpected, []);
    const errors = browser.errors.filter(
      (e) =>
        e.startsWith('HTTP ') || !/Failed to load resource|ERR_FAILED|ERR_NAME_NOT_RESOLVED|net::/.test(e),
    );
    assert.deepEqual(errors, []);
  });
});

/**
 * Deploys; when Node-RED asks first because nodes are not properly configured (a dialog saved a blank required
 * field), deploys anyway, so that the checks after it name what is wrong. Returns the nodes Node-RED listed.
 */
async function deployAnyway(page: Page): Promise<string[]> {
  await page.click('#red-ui-header-button-deploy');
  const confirm = page.locator('#red-ui-deploy-dialog-confirm-deploy-deploy');
  const asked = await Promise.race([
    confirm.waitFor({ timeout: 20000 }).then(() => true),
    page.waitForSelector('#red-ui-header-button-deploy.disabled', { timeout: 20000 }).then(() => false),
  ]);
  if (!asked) return [];
  const listed = await page
    .locator('.red-ui-deploy-dialog-confirm-list li')
    .evaluateAll((lis) => lis.map((li) => li.textContent ?? ''));
  await confirm.click();
  await page.waitForSelector('#red-ui-header-button-deploy.disabled', { timeout: 20000 });
  return listed.length > 0 ? listed : ['(a confirmation without a list)'];
}

async function stackJobs(stack: Stack): Promise<number[]> {
  const state = (await (await fetch(`${stack.emulator.url}/_emulator/state`)).json()) as {
    accounts: { jobs: { id: number }[] }[];
  };
  return state.accounts.flatMap((a) => a.jobs.map((j) => j.id));
}
