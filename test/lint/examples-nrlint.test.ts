/**
 * Every example flow passes Node-RED's own flow linter (nrlint) with its default rules, ESLint on function nodes
 * included: what a user who imports an example and runs the linter Node-RED users run would see. The rules are
 * the ones `nrlint --init` writes (made fresh for each run, so a new nrlint's defaults apply too).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const EXAMPLES = path.join(ROOT, 'examples');
const CLI = path.join(path.dirname(require.resolve('nrlint/package.json')), 'bin', 'nrlint.js');

interface Problem {
  location: string[];
  message: string;
  rule: string;
  severity: string;
}

function nrlint(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('examples: Node-RED flow linter (nrlint, default rules)', () => {
  let dir: string;
  let config: string;

  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'smsgw-nrlint-'));
    config = path.join(dir, '.nrlintrc.js');
    const init = nrlint(['--init']);
    assert.equal(init.status, 0, init.stderr);
    assert.match(init.stdout, /no-overlapping-nodes/);
    writeFileSync(config, init.stdout);
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  const files = readdirSync(EXAMPLES).filter((f) => f.endsWith('.json'));

  it('lints every example (the list is not empty)', () => {
    assert.ok(files.length >= 10, `${files.length} examples`);
  });

  for (const file of files) {
    it(`${file}: no problems`, () => {
      const r = nrlint(['-c', config, '-f', 'json', path.join(EXAMPLES, file)]);
      const problems = JSON.parse(r.stdout || 'null') as Problem[] | null;
      assert.ok(Array.isArray(problems), `nrlint printed no JSON: ${r.stdout}${r.stderr}`);
      assert.deepEqual(
        problems.map((p) => `${p.severity} ${p.rule}: ${p.message} (${p.location.join(', ')})`),
        [],
      );
    });
  }
});
