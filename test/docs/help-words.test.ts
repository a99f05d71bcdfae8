/**
 * The node help and the dialogs' texts speak to a user who never saw the service's specification: what the
 * gateway's documentation does not say and what the package does about it, not "the spec" or "our reading". A test of words, so a new text cannot slip back into the project's own shorthand.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

const localesDir = path.join(__dirname, '..', '..', 'nodes', 'locales');
const root = path.join(__dirname, '..', '..');
const SHORTHAND: Record<string, RegExp> = {
  'en-US': /\b(spec|specs|specification|our|we|us)\b/gi,
  de: /\b(Spezifikation|Spec|unser\w*|wir|uns)\b/gi,
};

describe('docs: node help and dialog texts use words a user knows', () => {
  for (const [lang, words] of Object.entries(SHORTHAND)) {
    it(`${lang}: no "the spec", "our reading", "we read"`, () => {
      const found: string[] = [];
      for (const file of readdirSync(path.join(localesDir, lang))) {
        const text = readFileSync(path.join(localesDir, lang, file), 'utf8').replace(/<[^>]+>/g, ' ');
        for (const m of text.matchAll(words))
          found.push(
            `${file}: …${text.slice(Math.max(0, m.index - 40), m.index + 40).replace(/\s+/g, ' ')}…`,
          );
      }
      assert.deepEqual(found, []);
    });
  }

  // "2 message(s) kept": a count is said in the singular or the plural (i18next's key_plural), as a person says it
  for (const [lang, shorthand] of Object.entries({ 'en-US': /\w\(s\)/g, de: /\w\((?:en|n|e|s)\)/g })) {
    it(`${lang}: no "(s)" plurals`, () => {
      const found: string[] = [];
      for (const file of readdirSync(path.join(localesDir, lang))) {
        const text = readFileSync(path.join(localesDir, lang, file), 'utf8');
        for (const m of text.matchAll(shorthand))
          found.push(`${file}: …${text.slice(Math.max(0, m.index - 30), m.index + 10)}…`);
      }
      assert.deepEqual(found, []);
    });
  }
  // The same for texts written in code (errors, log lines, the emulator's log): a line of code (not a comment) with
  // a quoted or template text holding "word(s)" is found; counted() in src/count.ts says it in words.
  it('code: no "(s)" plurals in texts (src, scripts, bin)', () => {
    const found: string[] = [];
    const walk = (dir: string): void => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\.(ts|c?js)$/.test(e.name))
          readFileSync(p, 'utf8')
            .split('\n')
            .forEach((line, i) => {
              const code = line.trim();
              if (code.startsWith('*') || code.startsWith('//') || code.startsWith('/*')) return;
              if (/['"`][^'"`]*(?<![.\w])[a-z]+\(s\)[\s,.;:'"`]/.test(code))
                found.push(`${path.relative(root, p)}:${i + 1}: ${code}`);
            });
      }
    };
    // The sandbox's and the generator's messages are read by people too.
    for (const dir of ['src', 'scripts', 'bin']) walk(path.join(root, dir));
    assert.deepEqual(found, []);
  });
});
