import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { SHARED_NS } from '../../src/nodes/common/status';

const root = path.join(__dirname, '..', '..');
const nodesDir = path.join(root, 'nodes');
const srcDir = path.join(root, 'src', 'nodes');
const MODULE = '@smsgw/node-red-sms-gateway';
const LANGS = ['en-US', 'de'];

const nodeTypes = readdirSync(nodesDir)
  .filter((f) => f.endsWith('.html'))
  .map((f) => f.slice(0, -5));

function catalogue(lang: string, set: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path.join(nodesDir, 'locales', lang, `${set}.json`), 'utf8')) as Record<
    string,
    unknown
  >;
}

function lookup(obj: Record<string, unknown>, key: string): unknown {
  return key
    .split('.')
    .reduce<unknown>(
      (o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined),
      obj,
    );
}

/** "ns:key" names another set of this module; a bare key belongs to the set that uses it. */
function resolve(key: string, ownSet: string): { set: string; key: string } {
  const i = key.indexOf(':');
  if (i < 0) return { set: ownSet, key };
  const ns = key.slice(0, i);
  assert.ok(ns.startsWith(`${MODULE}/`), `namespace of ${key} is not this module`);
  return { set: ns.slice(MODULE.length + 1), key: key.slice(i + 1) };
}

function leafKeys(obj: unknown, prefix = ''): string[] {
  if (typeof obj !== 'object' || obj === null) return [prefix];
  return Object.entries(obj).flatMap(([k, v]) => leafKeys(v, prefix ? `${prefix}.${k}` : k));
}

/** Every i18n key used by an editor file or a runtime module, with the set it belongs to. */
function usedKeys(): { file: string; set: string; key: string }[] {
  const out: { file: string; set: string; key: string }[] = [];
  for (const type of nodeTypes) {
    const html = readFileSync(path.join(nodesDir, `${type}.html`), 'utf8');
    for (const m of html.matchAll(/data-i18n="([^"]+)"/g)) {
      for (const part of m[1]!.split(';'))
        out.push({ file: `${type}.html`, ...resolve(part.replace(/^\[[^\]]+\]/, ''), type) });
    }
    for (const m of html.matchAll(/\b_\('([^']+)'/g))
      out.push({ file: `${type}.html`, ...resolve(m[1]!, type) });
  }
  // the shared editor helpers name the config node's keys as SHARED + '<key>'
  const editorJs = readFileSync(path.join(root, 'resources', 'editor.js'), 'utf8');
  for (const m of editorJs.matchAll(/SHARED \+ '([^']+)'/g))
    out.push({ file: 'resources/editor.js', ...resolve(SHARED_NS + m[1]!, 'smsgw-config') });
  const sources = readdirSync(srcDir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  for (const file of sources) {
    const text = readFileSync(path.join(srcDir, file), 'utf8');
    const own = path.basename(file, '.ts');
    for (const m of text.matchAll(/sharedKey\('([^']+)'\)/g))
      out.push({ file, ...resolve(SHARED_NS + m[1]!, own) });
    for (const m of text.matchAll(/RED\._\('([^']+)'/g)) {
      assert.ok(
        !file.startsWith('shared'),
        `${file}: shared code must use sharedKey() (its RED._ namespace is the caller's)`,
      );
      out.push({ file, ...resolve(m[1]!, own) });
    }
  }
  return out;
}

describe('nodes: i18n catalogues', () => {
  const used = usedKeys();

  it('finds the keys the editor and runtime use', () => {
    assert.ok(used.length > 100, `only ${used.length} keys found`);
    assert.ok(used.some((u) => u.file.endsWith('.ts')));
  });

  for (const lang of LANGS) {
    it(`every key used exists in ${lang}`, () => {
      const missing = used.filter((u) => typeof lookup(catalogue(lang, u.set), u.key) !== 'string');
      assert.deepEqual(
        missing.map((m) => `${m.file}: ${m.set}:${m.key}`),
        [],
      );
    });
  }

  it('de has every key en-US has (and no others), and both have a help page per node', () => {
    for (const type of nodeTypes) {
      assert.deepEqual(
        leafKeys(catalogue('de', type)).sort(),
        leafKeys(catalogue('en-US', type)).sort(),
        type,
      );
      for (const lang of LANGS) {
        const help = readFileSync(path.join(nodesDir, 'locales', lang, `${type}.html`), 'utf8');
        assert.match(help, new RegExp(`data-help-name="${type}"`), `${lang}/${type}.html`);
      }
    }
  });

  it('each catalogue has one top-level key: its node type', () => {
    for (const lang of LANGS)
      for (const type of nodeTypes) assert.deepEqual(Object.keys(catalogue(lang, type)), [type]);
  });

  it('SHARED_NS names the config node set of this module', () => {
    assert.equal(SHARED_NS, `${MODULE}/smsgw-config:smsgw-config.`);
    const editorJs = readFileSync(path.join(root, 'resources', 'editor.js'), 'utf8');
    assert.ok(editorJs.includes(`var SHARED = '${SHARED_NS}';`), 'resources/editor.js has its own SHARED');
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { name: string };
    assert.equal(pkg.name, MODULE);
  });
});
