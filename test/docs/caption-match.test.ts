import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

const root = path.join(__dirname, '..', '..');

/** What users read about the nodes: the node help and labels (en-US, de), docs/nodes.md and the README. */
function nodeDocs(): Array<{ file: string; text: string }> {
  const files = ['README.md', 'docs/nodes.md'];
  for (const locale of ['en-US', 'de']) {
    const dir = `nodes/locales/${locale}`;
    files.push(...readdirSync(path.join(root, dir)).map((f) => `${dir}/${f}`));
  }
  return files.map((file) => ({
    file,
    text: readFileSync(path.join(root, file), 'utf8')
      .replace(/<[^>]+>/g, '')
      .replace(/\s+/g, ' '),
  }));
}

const sentences = (text: string): string[] => text.split(/(?<=[.!?])\s+/);

describe('docs: nothing tells users the gateway matches captions by prefix', () => {
  it('every sentence about captions "starting with" the one asked for says it is only our emulator', () => {
    const claims: string[] = [];
    for (const { file, text } of nodeDocs()) {
      for (const s of sentences(text)) {
        if (!/caption/i.test(s) || !/starts? with|beginnt mit|beginnen/i.test(s)) continue;
        if (!/emulator/i.test(s)) claims.push(`${file}: ${s}`);
      }
    }
    assert.deepEqual(claims, []);
  });

  it('the config help (en-US, de) tells users to query with the caption as sent', () => {
    for (const locale of ['en-US', 'de']) {
      const help = readFileSync(path.join(root, `nodes/locales/${locale}/smsgw-config.html`), 'utf8');
      assert.match(help, /msg\.payload\.caption/, locale);
      assert.match(help, /emulator/i, `${locale}: says where prefix matching comes from`);
    }
  });
});
