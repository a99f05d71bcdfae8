/**
 * Junk in every field of every node, in the real editor (the cases of test/helpers/field-cases.ts, which
 * test/nodes/field-junk.test.ts deploys): the editor refuses exactly what the runtime refuses at deploy, with the
 * same words, and a blank field that takes a default shows it. One Node-RED, one page:
 * - every case through Node-RED's own validation of a node (RED.editor.validateNode: the red triangle and the
 *   reasons the node's info lists), for every declared field (selects and checkboxes included);
 * - every field a person types into, in its open dialog: the value set as typing leaves it (the field's change
 *   event), the field's red state and its tooltip's words; one field per node type typed with the keyboard.
 * `${NAME}` is the documented exception: Node-RED's editor takes it as valid (it cannot see the runtime's
 * environment) and says it is resolved at deploy; the runtime refuses it there when NAME is not set.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { FIELDS } from '../../src/nodes/fields';
import { baseValues, CONFIG_ID, fieldCases } from '../helpers/field-cases';
import { openBrowser, type Browser } from './browser';
import { openEditDialog } from './editor';
import { nodeRedVersion, outDir, PALETTE_TYPES, startStack, type Stack } from './stack';

const TAB = 'e2efields0000001';
const DEMO = { user: 'demo', password: 'demo-password' };
const nodeId = (type: string): string => (type === 'smsgw-config' ? CONFIG_ID : `n-${type}`);

/** What the editor says of one case. */
interface Seen {
  refused: boolean;
  reasons: string[];
}

/** What a dialog field shows after a value was typed into it. */
interface Typed {
  junk: string;
  red: boolean;
  tooltip: string | null;
  title: string | null;
}

const TYPEABLE = new Set(['number', 'text', 'property', 'typed']);

describe(`field rules in the editor (every field, every junk value): Node-RED ${nodeRedVersion}`, function () {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  const cases = fieldCases();

  before(async function () {
    stack = await startStack('fields', (url) => [
      { id: TAB, type: 'tab', label: 'Fields', disabled: false, info: '' },
      {
        id: CONFIG_ID,
        type: 'smsgw-config',
        ...baseValues('smsgw-config'),
        baseUrl: url,
        name: 'emulator',
        credentials: { ...DEMO },
      },
      ...PALETTE_TYPES.map((type, i) => ({
        id: nodeId(type),
        type,
        z: TAB,
        x: 160 + (i % 3) * 260,
        y: 80 + Math.floor(i / 3) * 90,
        ...baseValues(type),
        wires: [],
      })),
    ]);
    browser = await openBrowser();
    page = browser.page;
    await page.goto(`${stack.nodeRed.url}/`);
    await page.waitForSelector('#red-ui-palette-container .red-ui-palette-node', { timeout: 60000 });
    await page.waitForFunction((id) => {
      const RED = (window as unknown as { RED: { nodes: { node(id: string): unknown } } }).RED;
      return RED.nodes.node(id) !== null && RED.nodes.node(id) !== undefined;
    }, nodeId(PALETTE_TYPES[0]!));
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && page) {
      mkdirSync(outDir, { recursive: true });
      const file = `failed-fields-${this.currentTest.title.replace(/\W+/g, '-').slice(0, 60)}.png`;
      await page.screenshot({ path: join(outDir, file) }).catch(() => undefined);
    }
  });
  after(async function () {
    await browser?.close();
    await stack?.stop();
  });

  it('loads the field rules once and builds every node type from them, without page errors', async function () {
    const loaded = await page.evaluate(() => {
      const w = window as unknown as { smsgwFields?: { tables: Record<string, unknown> } };
      return Object.keys(w.smsgwFields?.tables ?? {});
    });
    assert.deepEqual(loaded.sort(), Object.keys(FIELDS).sort());
    // Every deployed node of the base values is valid (nothing red before any junk).
    const invalid = await page.evaluate(
      (ids) => {
        const RED = (window as unknown as { RED: EditorRED }).RED;
        return ids.filter((id) => RED.nodes.node(id)?.valid === false);
      },
      [CONFIG_ID, ...PALETTE_TYPES.map(nodeId)],
    );
    assert.deepEqual(invalid, []);
    // Blocked requests off this machine (Node-RED's palette catalogue) aside, no page error.
    const errors = browser.errors.filter(
      (e) =>
        e.startsWith('HTTP ') || !/Failed to load resource|ERR_FAILED|ERR_NAME_NOT_RESOLVED|net::/.test(e),
    );
    assert.deepEqual(errors, []);
  });

  it("every case through Node-RED's validation of the node: refused exactly as at deploy, with the same words", async function () {
    const seen = await page.evaluate(
      ({ all, ids }) => {
        const RED = (window as unknown as { RED: EditorRED }).RED;
        return all.map((c) => {
          const node = RED.nodes.node(ids[c.nodeType]!)!;
          const before: Record<string, unknown> = {};
          for (const k of Object.keys(c.values)) before[k] = node[k];
          Object.assign(node, c.values);
          RED.editor.validateNode(node);
          const out = { refused: node.valid === false, reasons: (node.validationErrors ?? []).map(String) };
          Object.assign(node, before);
          RED.editor.validateNode(node);
          return out;
        });
      },
      {
        all: cases.map((c) => ({ nodeType: c.nodeType, values: c.values })),
        ids: Object.fromEntries(Object.keys(FIELDS).map((t) => [t, nodeId(t)])),
      },
    );
    const wrong: string[] = [];
    cases.forEach((c, i) => {
      const s: Seen = seen[i]!;
      const label = `${c.nodeType}.${c.field} = ${JSON.stringify(c.junk)}`;
      if (s.refused !== c.editor.refused)
        wrong.push(`${label}: editor ${s.refused ? 'refuses' : 'takes'} it`);
      else if (
        c.editor.reason !== undefined &&
        JSON.stringify(s.reasons) !== JSON.stringify([c.editor.reason])
      )
        wrong.push(`${label}: ${JSON.stringify(s.reasons)} instead of ${JSON.stringify(c.editor.reason)}`);
    });
    assert.deepEqual(wrong, []);
    // Both sides refuse something of every kind of field that can be wrong.
    assert.ok(cases.filter((c) => c.editor.refused).length > 300);
  });

  for (const nodeType of ['smsgw-config', ...PALETTE_TYPES]) {
    const typeable = cases.filter((c) => c.nodeType === nodeType && TYPEABLE.has(c.kind));
    if (typeable.length === 0) continue;
    it(`${nodeType}: junk typed into its dialog turns each field red exactly as at deploy, the tooltip in the same words`, async function () {
      await openDialog(page, nodeType);
      try {
        const prefix = nodeType === 'smsgw-config' ? 'node-config-input' : 'node-input';
        const fields = [...new Set(typeable.map((c) => c.field))];
        const wrong: string[] = [];
        for (const field of fields) {
          const group = typeable.filter((c) => c.field === field);
          const shown = await typeInto(
            page,
            `${prefix}-${field}`,
            group[0]!.context,
            prefix,
            group.map((c) => c.junk),
          );
          if (shown === 'missing') {
            wrong.push(`${nodeType}.${field}: no such field in the dialog`);
            continue;
          }
          // A list to choose from: nothing to type (judged above, as the node holds it).
          if (shown === 'select') continue;
          group.forEach((c, i) => {
            const t = shown[i]!;
            const label = `${nodeType}.${field} = ${JSON.stringify(c.junk)}`;
            if (t.red !== c.editor.refused)
              wrong.push(`${label}: ${t.red ? 'red' : 'not red'} in the dialog`);
            else if (c.editor.refused && c.editor.reason !== undefined && t.tooltip !== c.editor.reason)
              wrong.push(
                `${label}: tooltip ${JSON.stringify(t.tooltip)} instead of ${JSON.stringify(c.editor.reason)}`,
              );
            if (!c.editor.refused && t.tooltip !== null) wrong.push(`${label}: a tooltip on a valid field`);
            // `${NAME}`: taken here, and the field says it is resolved at deploy.
            if (/^\$\{\w+\}$/.test(c.junk) && c.kind !== 'typed' && !(t.title ?? '').includes(c.junk))
              wrong.push(`${label}: title ${JSON.stringify(t.title)}`);
          });
        }
        // One field typed with the keyboard, as a person does: the same red state and words.
        const first = typeable.find(
          (c) => c.editor.refused && c.kind !== 'typed' && c.editor.reason !== undefined,
        );
        if (first) {
          const keyed = await typeWithKeyboard(page, `${prefix}-${first.field}`, first.junk);
          if (keyed.red !== true || keyed.tooltip !== first.editor.reason)
            wrong.push(`${nodeType}.${first.field} typed with the keyboard: ${JSON.stringify(keyed)}`);
        }
        // A blank field that takes a default shows it.
        const placeholders = await page.evaluate(
          ({ names, prefix: p }) =>
            names.map((n) => {
              const $ = (window as unknown as { $: JQ }).$;
              return String($(`#${p}-${n}`).attr('placeholder') ?? '');
            }),
          {
            names: fields.filter((f) => FIELDS[nodeType]![f]!.blank === 'default'),
            prefix,
          },
        );
        fields
          .filter((f) => FIELDS[nodeType]![f]!.blank === 'default')
          .forEach((f, i) => {
            const rule = FIELDS[nodeType]![f]!;
            const want = String(rule.default ?? rule.value);
            if (want !== '' && placeholders[i] !== want && rule.kind !== 'typed')
              wrong.push(
                `${nodeType}.${f}: placeholder ${JSON.stringify(placeholders[i])} instead of ${JSON.stringify(want)}`,
              );
          });
        assert.deepEqual(wrong, []);
      } finally {
        await closeDialog(page, nodeType);
      }
    });
  }
});

// ---- in the page ----

interface EditorNode {
  id: string;
  valid?: boolean;
  validationErrors?: unknown[];
  [k: string]: unknown;
}
interface EditorRED {
  nodes: { node(id: string): EditorNode | undefined };
  editor: { validateNode(n: EditorNode): void; editConfig(...a: unknown[]): void };
  tray: { close(): void };
}
interface JQ {
  (selector: string | Element): JQ;
  length: number;
  attr(n: string): string | undefined;
  is(s: string): boolean;
  prop(n: string, v?: unknown): unknown;
  val(): unknown;
  val(v: unknown): JQ;
  trigger(e: string): JQ;
  hasClass(c: string): boolean;
  next(s: string): JQ;
  find(s: string): JQ;
  data(
    k: string,
  ): { open(i: boolean): void; close(i: boolean): void; element?: JQ & { text(): string } } | null;
  typedInput(...a: unknown[]): unknown;
}

async function openDialog(page: Page, nodeType: string): Promise<void> {
  if (nodeType === 'smsgw-config') {
    await page.evaluate((id) => {
      const RED = (window as unknown as { RED: EditorRED }).RED;
      RED.editor.editConfig('', 'smsgw-config', id, 'node-config-input');
    }, CONFIG_ID);
    await page.waitForSelector('#node-config-input-baseUrl', { state: 'visible' });
  } else {
    await openEditDialog(page, nodeId(nodeType));
    await page.waitForSelector('#node-input-gateway', { state: 'attached' });
  }
  // The dialogs fill some fields once their catalogue or widgets are ready.
  await page.waitForTimeout(300);
}

async function closeDialog(page: Page, nodeType: string): Promise<void> {
  const cancel = nodeType === 'smsgw-config' ? '#node-config-dialog-cancel' : '#node-dialog-cancel';
  await page.click(cancel);
  await page.waitForSelector(cancel, { state: 'detached' });
}

/**
 * Sets the context (checkboxes, selects) then each junk value into a dialog field as typing leaves it, and reads
 * what the dialog shows. 'missing' when the dialog has no such field, 'select' for a list.
 */
async function typeInto(
  page: Page,
  inputId: string,
  context: Record<string, unknown>,
  prefix: string,
  junk: string[],
): Promise<Typed[] | 'missing' | 'select'> {
  return page.evaluate(
    async ({ inputId: id, context: ctx, prefix: p, junk: values }) => {
      const $ = (window as unknown as { $: JQ }).$;
      const input = $(`#${id}`);
      if (input.length === 0) return 'missing' as const;
      if (input.is('select')) return 'select' as const;
      for (const [name, value] of Object.entries(ctx)) {
        const other = $(`#${p}-${name}`);
        if (other.is('[type=checkbox]')) other.prop('checked', value === true || value === 'true');
        else other.val(value);
        other.trigger('change');
      }
      const container = input.next('.red-ui-typedInput-container');
      const typed = container.length > 0;
      const original = typed ? String(input.typedInput('value')) : String(input.val());
      // The field's own value last, so the dialog is as it was (no named function here: the page has no __name).
      const shown: { junk: string; red: boolean; tooltip: string | null; title: string | null }[] = [];
      for (const junkValue of [...values, original]) {
        if (typed) {
          const box = container.find('input.red-ui-typedInput-input');
          box.val(junkValue);
          box.trigger('change');
        } else {
          input.val(junkValue);
          input.trigger('change');
        }
        const red = (typed ? container : input).hasClass('input-error');
        const tip = input.data('tooltip');
        let tooltip: string | null = null;
        if (tip && red) {
          tip.open(true);
          // Node-RED 5 fills an opened tooltip a moment later.
          for (let i = 0; i < 20 && !(tip.element && tip.element.text()); i++)
            await new Promise((resolve) => setTimeout(resolve, 5));
          tooltip = tip.element ? tip.element.text() : null;
          tip.close(true);
        }
        shown.push({ junk: junkValue, red, tooltip, title: input.attr('title') ?? null });
      }
      return shown.slice(0, values.length);
    },
    { inputId, context, prefix, junk },
  );
}

/** Clears a plain dialog field and types into it with the keyboard; what the dialog shows then. */
async function typeWithKeyboard(
  page: Page,
  inputId: string,
  value: string,
): Promise<Omit<Typed, 'junk' | 'title'>> {
  const input = page.locator(`#${inputId}`);
  const visible = await input.isVisible();
  if (visible) {
    await input.click();
    await input.press('ControlOrMeta+a');
    await input.press('Backspace');
    await input.pressSequentially(value);
  } else
    await page.evaluate(
      ([id, v]) => {
        const $ = (window as unknown as { $: JQ }).$;
        $(`#${id}`).val(v).trigger('keyup');
      },
      [inputId, value],
    );
  return page.evaluate(async (id) => {
    const $ = (window as unknown as { $: JQ }).$;
    const el = $(`#${id}`);
    const red = el.hasClass('input-error');
    const tip = el.data('tooltip');
    let tooltip: string | null = null;
    if (tip && red) {
      tip.open(true);
      for (let i = 0; i < 20 && !(tip.element && tip.element.text()); i++)
        await new Promise((resolve) => setTimeout(resolve, 5));
      tooltip = tip.element ? tip.element.text() : null;
      tip.close(true);
    }
    return { red, tooltip };
  }, inputId);
}
