import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { CATALOGUE } from '../../src/catalogue';
import { nodeOperations } from '../../src/nodes/common/operations';
import { HELP_LANGS, helpPath, menuNodes, replaceCell } from '../../scripts/gen-doc-lists';
import { generatedFiles, orphanGoldens } from '../../scripts/generate';

const ROOT = join(__dirname, '..', '..');

describe('generated outputs (npm run generate writes them all)', function () {
  this.timeout(60_000);

  it('every file npm run generate writes is current: run npm run generate when this fails', async () => {
    const stale: string[] = [];
    for (const f of await generatedFiles()) {
      if (readFileSync(f.path, 'utf8') !== f.text) stale.push(relative(ROOT, f.path));
    }
    assert.deepEqual(stale, [], `stale: ${stale.join(', ')}; run npm run generate`);
    assert.deepEqual(orphanGoldens(), [], 'goldens of unknown operations; run npm run generate');
  });

  it('is one command: package.json runs scripts/generate.ts as npm run generate', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    assert.equal(pkg.scripts.generate, 'tsx scripts/generate.ts');
  });

  it('the help of every node with a menu names each operation it offers, en-US and de', () => {
    for (const [nodeType, names] of Object.entries(menuNodes())) {
      for (const lang of HELP_LANGS) {
        const help = readFileSync(helpPath(lang, nodeType), 'utf8');
        for (const name of names)
          assert.ok(help.includes(name), `${lang}/${nodeType}.html does not name ${name}`);
      }
    }
    assert.ok(Object.keys(menuNodes()).length > 0);
    assert.deepEqual(
      Object.keys(nodeOperations(CATALOGUE)).sort(),
      [...Object.keys(menuNodes()), 'smsgw-call'].sort(),
    );
  });

  it('rewrites one table cell and re-pads only its column', () => {
    const table = [
      'text',
      '| a   | b  | c |',
      '| --- | -- | - |',
      '| `x` | 1  | 2 |',
      '| `y` | 22 | 3 |',
      'after',
    ].join('\n');
    assert.equal(
      replaceCell(table, '`x`', 1, 'longer', 'test.md'),
      [
        'text',
        '| a   | b      | c |',
        '| --- | ------ | - |',
        '| `x` | longer | 2 |',
        '| `y` | 22     | 3 |',
        'after',
      ].join('\n'),
    );
    assert.throws(
      () => replaceCell(table, '`z`', 1, 'v', 'test.md'),
      /test\.md: no table row starting with `z`/,
    );
  });
});
