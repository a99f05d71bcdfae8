/**
 * The gateway configuration's dialog and its help use the same words: one tab per help section, every field
 * under its label (the runtime's errors name fields by the same catalogue keys: src/nodes/fields).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

const nodesDir = path.join(__dirname, '..', '..', 'nodes');
const template = readFileSync(path.join(nodesDir, 'smsgw-config.html'), 'utf8');

type Catalogue = { 'smsgw-config': { label: Record<string, string>; tabs: Record<string, string> } };
const catalogue = (lang: string): Catalogue['smsgw-config'] =>
  (JSON.parse(readFileSync(path.join(nodesDir, 'locales', lang, 'smsgw-config.json'), 'utf8')) as Catalogue)[
    'smsgw-config'
  ];

/** Tab id suffix → the label keys of the fields in that tab, in dialog order. */
function dialogTabs(): [string, string[]][] {
  const parts = template.split(/<div id="smsgw-config-tab-(\w+)"/).slice(1);
  const tabs: [string, string[]][] = [];
  for (let i = 0; i < parts.length; i += 2) {
    const keys = [
      ...parts[i + 1]!.matchAll(
        /<label[^>]*>(?:(?!<\/label>)[\s\S])*?data-i18n="smsgw-config\.label\.(\w+)"/g,
      ),
    ].map((m) => m[1]!);
    tabs.push([parts[i]!, keys]);
  }
  return tabs;
}

/** Help section heading → its <dt>s joined by ", " (one <dt> may name two fields: "User, Password"). */
function helpSections(lang: string): [string, string][] {
  const help = readFileSync(path.join(nodesDir, 'locales', lang, 'smsgw-config.html'), 'utf8');
  const out: [string, string][] = [];
  for (const m of help.matchAll(/<h3>([^<]+)<\/h3>\s*<dl[^>]*>([\s\S]*?)<\/dl>/g)) {
    const terms = [...m[2]!.matchAll(/<dt>([^<]+)</g)].map((t) => t[1]!.trim());
    out.push([m[1]!, terms.join(', ')]);
  }
  return out;
}

describe('nodes: smsgw-config dialog and help', () => {
  it('the dialog has the tabs Connection, Security, Delivery, Messages, Budget and Opt-out', () => {
    assert.deepEqual(
      dialogTabs().map(([id]) => id),
      ['connection', 'security', 'delivery', 'messages', 'budget', 'optout'],
    );
    assert.match(template, /RED\.tabs\.create\(/);
  });

  for (const lang of ['en-US', 'de']) {
    it(`${lang}: the help has one section per tab, naming each field as the dialog labels it`, () => {
      const cat = catalogue(lang);
      const expected = dialogTabs().map(([id, keys]): [string, string] => [
        cat.tabs[id]!,
        keys.map((k) => cat.label[k]!).join(', '),
      ]);
      assert.deepEqual(helpSections(lang), expected);
    });
  }
});
