import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

const root = path.join(__dirname, '..', '..');

/** The README, docs/*.md and the node help (en-US, de): everything a user reads about the package. */
function userDocs(): Array<{ file: string; text: string }> {
  const files = ['README.md', ...readdirSync(path.join(root, 'docs')).map((f) => `docs/${f}`)];
  for (const locale of ['en-US', 'de']) {
    const dir = `nodes/locales/${locale}`;
    files.push(...readdirSync(path.join(root, dir)).map((f) => `${dir}/${f}`));
  }
  return files
    .filter((f) => /\.(md|html)$/.test(f))
    .map((file) => ({
      file,
      // One line of text: markup and line breaks do not end a sentence, a blank line (paragraph) does.
      text: readFileSync(path.join(root, file), 'utf8')
        .replace(/\n\s*\n/g, '. ')
        .replace(/<[^>]+>/g, '')
        .replace(/[*_`]/g, '')
        .replace(/\s+/g, ' '),
    }));
}

/** The sentence holding `at` and the one after it (a sentence ends at . ! ? before a space or the end). */
function sentenceAndNext(text: string, at: number): string {
  const end = /[.!?](?:\s|$)/g;
  let start = 0;
  for (let m = end.exec(text); m && m.index < at; m = end.exec(text)) start = m.index + 1;
  end.lastIndex = at;
  let stop = text.length;
  for (let i = 0, m = end.exec(text); m && i < 2; m = end.exec(text), i++) stop = m.index + 1;
  return text.slice(start, stop).trim();
}

const CLAIM = 'exactly once|genau einmal';
/** The documented limit (docs/reliability.md): a late commit on a gateway without duplicate detection. */
const LIMIT_EN = /duplicate detection/i;
const LATE_EN = /\blate\b|\blater\b/i;
const LIMIT_DE = /Duplikaterkennung/i;
const LATE_DE = /\bspät/i;

describe('docs: "exactly once" always comes with its documented limit', () => {
  const docs = userDocs();

  it('finds the claim where users read it (the README makes it)', () => {
    const readme = docs.find((d) => d.file === 'README.md');
    assert.ok(readme);
    assert.match(readme.text, new RegExp(CLAIM, 'i'));
  });

  it('names the late commit on a gateway without duplicate detection in the same sentence or the next', () => {
    const missing: string[] = [];
    for (const { file, text } of docs) {
      for (const m of text.matchAll(new RegExp(CLAIM, 'gi'))) {
        const passage = sentenceAndNext(text, m.index);
        const named =
          (LIMIT_EN.test(passage) && LATE_EN.test(passage)) ||
          (LIMIT_DE.test(passage) && LATE_DE.test(passage));
        if (!named) missing.push(`${file}: "${passage}"`);
      }
    }
    assert.deepEqual(missing, []);
  });
});
