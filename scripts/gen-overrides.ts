/**
 * The msg override lists of the node help (en-US and de) and the table of docs/nodes.md, from the override table
 * (src/nodes/common/override-table.ts), so that what a node reads, what its help lists and what the docs say are
 * one source. Between `<!-- generated:overrides -->` markers: in the help one `<dt>`/`<dd>` per override (property,
 * type, and the words of the node's message catalogue, `<type>.overrides.<prop>`, or of the shared one,
 * `smsgw-config.overrides.<prop>`), or, for a node type without overrides, a paragraph saying why
 * (`<type>.overrides.none`); in docs/nodes.md a table with one row per node type. `npm run generate` writes them;
 * test/scripts/generate.test.ts fails when one is stale.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OVERRIDES } from '../src/nodes/common/override-table';
import type { Override, OverrideTable } from '../src/nodes/common/overrides';

const ROOT = join(__dirname, '..');
const LOCALES = join(ROOT, 'nodes', 'locales');
export const OVERRIDE_LANGS = ['en-US', 'de'] as const;
export type OverrideLang = (typeof OVERRIDE_LANGS)[number];

export const OVERRIDES_START = '<!-- generated:overrides -->';
export const OVERRIDES_END = '<!-- /generated:overrides -->';
const SHARED = 'smsgw-config';

/** The node types with an override table (every node type but the config node). */
export const overrideNodeTypes = (): string[] => Object.keys(OVERRIDES);

const tableOf = (nodeType: string): OverrideTable => {
  const table = (OVERRIDES as Readonly<Record<string, OverrideTable>>)[nodeType];
  if (table === undefined) throw new Error(`${nodeType} has no override table`);
  return table;
};

type Catalogue = Record<string, unknown>;
const catalogueOf = (lang: string, set: string): Catalogue =>
  JSON.parse(readFileSync(join(LOCALES, lang, `${set}.json`), 'utf8')) as Catalogue;

function lookup(cat: Catalogue, path: string[]): unknown {
  return path.reduce<unknown>(
    (o, k) => (typeof o === 'object' && o !== null ? (o as Catalogue)[k] : undefined),
    cat,
  );
}

/** The words of one override (or of `none`) in a language: the node's own catalogue first, then the shared one. */
export function overrideText(lang: OverrideLang, nodeType: string, prop: string): string {
  const own = lookup(catalogueOf(lang, nodeType), [nodeType, 'overrides', prop]);
  if (typeof own === 'string') return own;
  const shared = prop === 'none' ? undefined : lookup(catalogueOf(lang, SHARED), [SHARED, 'overrides', prop]);
  if (typeof shared === 'string') return shared;
  throw new Error(
    `nodes/locales/${lang}/${nodeType}.json has no "${nodeType}.overrides.${prop}"` +
      (prop === 'none'
        ? ' (why the node takes no msg overrides)'
        : ` (nor ${SHARED}.json "${SHARED}.overrides.${prop}")`),
  );
}

const escapeHtml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The help lines between the markers (without indentation). */
export function helpOverrideLines(
  lang: OverrideLang,
  nodeType: string,
  table: OverrideTable = tableOf(nodeType),
): string[] {
  const entries = Object.values(table);
  if (entries.length === 0) return [`<p>${overrideText(lang, nodeType, 'none')}</p>`];
  return entries.flatMap((o: Override) => {
    const text = overrideText(lang, nodeType, o.prop);
    if (o.alias !== undefined && !text.includes(`msg.${o.alias}`))
      throw new Error(
        `${lang} ${nodeType}: the words for msg.${o.prop} must name msg.${o.alias}, its other name`,
      );
    return [
      `<dt class="optional">${o.prop} <span class="property-type">${escapeHtml(o.type)}</span></dt>`,
      `<dd>${text}</dd>`,
    ];
  });
}

/** Replaces what lies between a START and an END marker, one line each, indented as the START marker is. */
export function replaceBetween(
  current: string,
  lines: readonly string[],
  where: string,
  start = OVERRIDES_START,
  end = OVERRIDES_END,
): string {
  const a = current.indexOf(start);
  if (a < 0) throw new Error(`${where}: no ${start} marker; put one pair where the list belongs`);
  const b = current.indexOf(end, a);
  if (b < 0) throw new Error(`${where}: ${start} without ${end}`);
  if (current.indexOf(start, a + 1) >= 0) throw new Error(`${where}: two ${start} markers`);
  const indent = /[ \t]*$/.exec(current.slice(0, a))![0];
  const body = lines.map((l) => (l === '' ? '\n' : `\n${indent}${l}`)).join('');
  return `${current.slice(0, a + start.length)}${body}\n${indent}${current.slice(b)}`;
}

/** A node's help with its override list rewritten. */
export function renderHelpOverrides(
  current: string,
  lang: OverrideLang,
  nodeType: string,
  table: OverrideTable = tableOf(nodeType),
): string {
  return replaceBetween(
    current,
    helpOverrideLines(lang, nodeType, table),
    `nodes/locales/${lang}/${nodeType}.html`,
  );
}

/** The help's HTML as Markdown for docs/nodes.md (the few tags the texts use). */
const markdown = (html: string): string =>
  html
    .replace(/<code>(.*?)<\/code>/g, '`$1`')
    .replace(/<\/?(i|em)>/g, '_')
    .replace(/<\/?b>/g, '**')
    .replace(/<[^>]+>/g, '')
    .replace(/\|/g, '\\|');

/** The palette label of a node type, as the editor shows it in English. */
function paletteLabel(nodeType: string): string {
  const label = lookup(catalogueOf('en-US', nodeType), [nodeType, 'label']) as Catalogue | undefined;
  const text = label?.default ?? label?.palette;
  if (typeof text !== 'string') throw new Error(`en-US/${nodeType}.json has no ${nodeType}.label.default`);
  return text;
}

/** The cell of one node type: its msg properties, or why it has none. */
export function docsOverrideCell(nodeType: string): string {
  const entries = Object.values(tableOf(nodeType));
  if (entries.length === 0) return markdown(overrideText('en-US', nodeType, 'none'));
  return entries
    .map((o: Override) => (o.alias === undefined ? `\`${o.prop}\`` : `\`${o.prop}\`/\`${o.alias}\``))
    .join(', ');
}

/** The Markdown table of docs/nodes.md, padded as prettier pads a table. */
export function docsOverrideTable(): string[] {
  const rows = overrideNodeTypes().map((t) => [`${paletteLabel(t)} (\`${t}\`)`, docsOverrideCell(t)]);
  const head = ['Node', 'msg properties that override a setting'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(head), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...rows.map(line)];
}

/** docs/nodes.md with its override table rewritten. */
export function renderNodesDocOverrides(current: string): string {
  return replaceBetween(current, ['', ...docsOverrideTable(), ''], 'docs/nodes.md');
}
