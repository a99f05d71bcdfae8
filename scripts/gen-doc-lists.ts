/**
 * The lists of operations in the docs and node help, from the catalogue, so that adding an operation does not
 * leave them behind: the *Operations* cells of docs/nodes.md (each node's menu), the *Service* cells of
 * docs/emulator.md's endpoint table, and the list between `<!-- generated:operations -->` markers in a node's
 * help (en-US and de). `npm run generate` writes them; test/scripts/generate.test.ts fails when one is stale.
 */
import { join } from 'node:path';
import { CATALOGUE, DEFAULT_PATHS, type Catalogue } from '../src/catalogue';
import type { ServiceName } from '../src/catalogue/types';
import { nodeOperations } from '../src/nodes/common/operations';

const ROOT = join(__dirname, '..');
export const NODES_DOC_PATH = join(ROOT, 'docs', 'nodes.md');
export const EMULATOR_DOC_PATH = join(ROOT, 'docs', 'emulator.md');
export const HELP_LANGS = ['en-US', 'de'] as const;
export const helpPath = (lang: string, nodeType: string): string =>
  join(ROOT, 'nodes', 'locales', lang, `${nodeType}.html`);

const START = '<!-- generated:operations -->';
const END = '<!-- /generated:operations -->';
/** How a help text joins the typed service's operations to the older service's. */
const OLDER: Readonly<Record<(typeof HELP_LANGS)[number], string>> = {
  'en-US': ' and the older ',
  de: ' und die älteren ',
};
const SERVICES: readonly ServiceName[] = ['information', 'send', 'customer', 'legacy'];

/** The node types with a menu of their own (the any-operation node lists everything and is not described so). */
export function menuNodes(catalogue: Catalogue = CATALOGUE): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [type, keys] of Object.entries(nodeOperations(catalogue)))
    if (type !== 'smsgw-call') out[type] = keys.map((k) => k.split('/')[1]!);
  return out;
}

/** Cells of a table row, split at unescaped pipes (index 0 is the text before the first pipe). */
const cellsOf = (line: string): string[] => line.split(/(?<!\\)\|/);

/**
 * Writes `text` into the cell `column` (0 = first) of the table row whose first cell starts with `rowStart`,
 * and pads that column of the table to its widest cell, as prettier aligns a table. Other columns keep their
 * bytes: the rest of a hand-kept file does not change.
 */
export function replaceCell(
  markdown: string,
  rowStart: string,
  column: number,
  text: string,
  file: string,
): string {
  const lines = markdown.split('\n');
  const row = lines.findIndex((l) => l.startsWith(`| ${rowStart}`));
  if (row < 0) throw new Error(`${file}: no table row starting with ${rowStart}`);
  let first = row;
  while (first > 0 && lines[first - 1]!.startsWith('|')) first--;
  let last = row;
  while (last + 1 < lines.length && lines[last + 1]!.startsWith('|')) last++;
  const table = lines.slice(first, last + 1).map(cellsOf);
  const at = column + 1;
  if (table.some((cells) => cells.length < at + 2)) throw new Error(`${file}: a row has no column ${column}`);
  table[row - first]![at] = text;
  const isRule = (cells: string[]): boolean => /^\s*:?-+:?\s*$/.test(cells[at]!);
  const width = Math.max(3, ...table.filter((c) => !isRule(c)).map((c) => c[at]!.trim().length));
  for (const cells of table) {
    cells[at] = isRule(cells) ? ` ${'-'.repeat(width)} ` : ` ${cells[at]!.trim().padEnd(width)} `;
  }
  lines.splice(first, table.length, ...table.map((cells) => cells.join('|')));
  return lines.join('\n');
}

/** docs/nodes.md with each menu node's *Operations* cell listing its menu. */
export function renderNodesDoc(current: string, catalogue: Catalogue = CATALOGUE): string {
  let text = current;
  for (const [type, names] of Object.entries(menuNodes(catalogue)))
    text = replaceCell(text, `\`${type}\``, 2, names.join(', '), NODES_DOC_PATH);
  return text;
}

/** docs/emulator.md with each service path's cell listing the service's operations. */
export function renderEmulatorDoc(current: string, catalogue: Catalogue = CATALOGUE): string {
  let text = current;
  for (const s of SERVICES) {
    const names = catalogue.of(s).map((o) => o.name);
    text = replaceCell(text, `\`${DEFAULT_PATHS[s]}\``, 1, names.join(', '), EMULATOR_DOC_PATH);
  }
  return text;
}

/** The operation list of a node's menu as its help writes it: typed ones, then the older service's. */
export function helpList(lang: (typeof HELP_LANGS)[number], keys: readonly string[]): string {
  const typed = keys.filter((k) => !k.startsWith('legacy/')).map((k) => k.split('/')[1]!);
  const older = keys.filter((k) => k.startsWith('legacy/')).map((k) => k.split('/')[1]!);
  if (typed.length === 0 || older.length === 0) return [...typed, ...older].join(', ');
  return `${typed.join(', ')}${OLDER[lang]}${older.join(', ')}`;
}

/** A node's help with the list between the markers rewritten; unchanged when it has no markers. */
export function renderHelp(
  current: string,
  lang: (typeof HELP_LANGS)[number],
  nodeType: string,
  catalogue: Catalogue = CATALOGUE,
): string {
  const a = current.indexOf(START);
  if (a < 0) return current;
  const b = current.indexOf(END, a);
  if (b < 0) throw new Error(`${helpPath(lang, nodeType)}: ${START} without ${END}`);
  const keys = nodeOperations(catalogue)[nodeType] ?? [];
  return current.slice(0, a + START.length) + helpList(lang, keys) + current.slice(b);
}
