/**
 * The override table (src/nodes/common/override-table.ts) is the one source of what a msg may override: the nodes
 * read it, and the help of every node (en-US, de) and docs/nodes.md are generated from it (`npm run generate`).
 * These tests hold the three together: a table entry the help does not list, a list entry the table does not have,
 * a field the dialog does not save, or a node type without a table fails here.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OVERRIDES } from '../../src/nodes/common/override-table';
import type { OverrideTable } from '../../src/nodes/common/overrides';
import {
  OVERRIDES_END,
  OVERRIDES_START,
  OVERRIDE_LANGS,
  docsOverrideTable,
  overrideNodeTypes,
  renderHelpOverrides,
  renderNodesDocOverrides,
  replaceBetween,
} from '../../scripts/gen-overrides';

const ROOT = join(__dirname, '..', '..');
const read = (...p: string[]): string => readFileSync(join(ROOT, ...p), 'utf8');
const help = (lang: string, type: string): string => read('nodes', 'locales', lang, `${type}.html`);
const tables = OVERRIDES as Readonly<Record<string, OverrideTable>>;

/** The `<dt>` names of a help's Inputs section, split into inside and outside the generated markers. */
function inputNames(html: string): { generated: string[]; written: string[] } {
  const inputs = html.slice(
    html.search(/<h3>(Inputs|Eingaben)<\/h3>/),
    html.search(/<h3>(Outputs|Ausgaben)<\/h3>/),
  );
  const a = inputs.indexOf(OVERRIDES_START);
  const b = inputs.indexOf(OVERRIDES_END);
  const names = (s: string): string[] => [...s.matchAll(/<dt[^>]*>([\w.]+)/g)].map((m) => m[1]!);
  return {
    generated: a < 0 || b < 0 ? [] : names(inputs.slice(a, b)),
    written: names(a < 0 ? inputs : inputs.slice(0, a) + inputs.slice(b)),
  };
}

/** The `defaults: { ... }` object of a node's registerType call, as text (braces counted). */
function defaultsOf(html: string): string {
  const start = html.indexOf('{', html.indexOf('defaults:'));
  let depth = 0;
  for (let i = start; i < html.length; i++) {
    if (html[i] === '{') depth++;
    else if (html[i] === '}' && --depth === 0) return html.slice(start, i + 1);
  }
  throw new Error('no defaults');
}

describe('msg overrides: one table for the nodes, their help and docs/nodes.md', () => {
  it('every node type but the config node has a table (empty when it takes no overrides)', () => {
    const pkg = JSON.parse(read('package.json')) as { 'node-red': { nodes: Record<string, string> } };
    const types = Object.keys(pkg['node-red'].nodes).filter((t) => t !== 'smsgw-config');
    assert.deepEqual(
      types.filter((t) => tables[t] === undefined),
      [],
      'add the node type to OVERRIDES in src/nodes/common/override-table.ts',
    );
    assert.deepEqual(overrideNodeTypes().sort(), Object.keys(tables).sort());
    // Keyed by the msg property, so a node asks for `o.msg(msg, 'track')` by the name a flow sets.
    for (const [type, table] of Object.entries(tables))
      for (const [key, o] of Object.entries(table)) assert.equal(o.prop, key, `${type}: ${key}`);
  });

  it('each help lists exactly the overrides of its table, in the generated part, in both languages', () => {
    for (const type of overrideNodeTypes()) {
      const props = Object.values(tables[type]!).map((o) => o.prop);
      for (const lang of OVERRIDE_LANGS) {
        const { generated, written } = inputNames(help(lang, type));
        assert.deepEqual(generated, props, `${lang}/${type}.html`);
        // An override also written by hand outside the markers would be a second description that can drift.
        assert.deepEqual(
          written.filter((n) => props.includes(n)),
          [],
          `${lang}/${type}.html describes an override outside the generated list`,
        );
      }
    }
  });

  it('a table the help does not match is stale: removing, adding or retyping an entry changes the help', () => {
    const type = 'smsgw-send-hlr';
    const table = tables[type]!;
    for (const lang of OVERRIDE_LANGS) {
      const current = help(lang, type);
      assert.equal(renderHelpOverrides(current, lang, type), current, 'the help as generated');
      const { wait: _wait, ...withoutWait } = table;
      assert.notEqual(renderHelpOverrides(current, lang, type, withoutWait), current);
      const retyped = { ...table, wait: { ...table.wait!, type: 'string' } };
      assert.notEqual(renderHelpOverrides(current, lang, type, retyped), current);
      // A new entry needs its words in the node's catalogue: generating fails, naming the key.
      const added = { ...table, madeUp: { prop: 'madeUp', type: 'string', check: String } };
      assert.throws(
        () => renderHelpOverrides(current, lang, type, added),
        new RegExp(`nodes/locales/${lang}/smsgw-send-hlr.json has no "smsgw-send-hlr.overrides.madeUp"`),
      );
    }
  });

  it('docs/nodes.md has one row per node type, listing its overrides (or why it has none)', () => {
    const doc = read('docs', 'nodes.md');
    assert.equal(renderNodesDocOverrides(doc), doc, 'run npm run generate');
    const rows = docsOverrideTable().slice(2);
    assert.equal(rows.length, overrideNodeTypes().length);
    const sms = rows.find((r) => r.includes('`smsgw-send-sms`'))!;
    for (const prop of ['recipient', 'track', 'trackTimeout', 'priority'])
      assert.ok(sms.includes(`\`${prop}\``), prop);
    assert.match(
      rows.find((r) => r.includes('`smsgw-dlr`'))!,
      /No msg property changes a setting/,
    );
  });

  it("each field an override names is saved by the node's dialog (a typed one with its type)", () => {
    for (const type of overrideNodeTypes()) {
      const html = read('nodes', `${type}.html`);
      const defaults = defaultsOf(html);
      for (const o of Object.values(tables[type]!)) {
        if (o.field === undefined) continue;
        // A field of the dialog's defaults: written out, or taken from the field declaration (smsgwField).
        const saved = (name: string): RegExp => new RegExp(`\\b${name}: (\\{|smsgwField\\('${name}'\\))`);
        assert.match(defaults, saved(o.field.name), `${type}: ${o.field.name}`);
        if (o.field.kind === 'typed')
          assert.match(defaults, saved(`${o.field.name}Type`), `${type}: ${o.field.name}Type`);
      }
    }
  });

  it('no node reads an override by hand: only the reader (common/overrides.ts) touches them', () => {
    const props = new Set(
      Object.values(tables).flatMap((t) =>
        Object.values(t).flatMap((o) => (o.alias ? [o.prop, o.alias] : [o.prop])),
      ),
    );
    const dir = join(ROOT, 'src', 'nodes');
    const byHand: string[] = [];
    for (const file of readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.ts'),
    )) {
      if (file === join('common', 'overrides.ts') || file === join('common', 'props.ts')) continue;
      // Code only: comments and string literals may name msg properties.
      const code = readFileSync(join(dir, file), 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/\/\/.*$/gm, '')
        .replace(/'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`/g, "''");
      for (const m of code.matchAll(/\bmsg\b(?:\s+as\s+[^)]*\))?\s*\??\.\s*(\w+)|\bmsgOverride\(/g))
        if (m[1] === undefined || props.has(m[1])) byHand.push(`${file}: ${m[0]}`);
    }
    assert.deepEqual(byHand, []);
    assert.ok(props.has('priority') && props.has('recipients'));
  });

  it('writes between the markers, indented as the first marker; without markers it names the file', () => {
    const text = [
      '<dl>',
      '    <dt>x</dt>',
      `    ${OVERRIDES_START}`,
      '    old',
      `    ${OVERRIDES_END}`,
      '</dl>',
    ].join('\n');
    assert.equal(
      replaceBetween(text, ['<dt>a</dt>', '<dd>b</dd>'], 'f.html'),
      [
        '<dl>',
        '    <dt>x</dt>',
        `    ${OVERRIDES_START}`,
        '    <dt>a</dt>',
        '    <dd>b</dd>',
        `    ${OVERRIDES_END}`,
        '</dl>',
      ].join('\n'),
    );
    assert.throws(
      () => replaceBetween('<dl></dl>', [], 'f.html'),
      /f\.html: no <!-- generated:overrides --> marker/,
    );
  });
});
