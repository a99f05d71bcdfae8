import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const scripts = (): Record<string, string> =>
  (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
    .scripts;

describe('the commands CONTRIBUTING.md names', function () {
  this.timeout(60_000);

  it('npm run test:one -- <file> runs that file and nothing else', () => {
    const file = join('test', 'scripts', 'fixtures', 'one.spec-fixture.ts');
    const run = spawnSync(NPM, ['run', '--silent', 'test:one', '--', file, '--reporter', 'json'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 50_000,
    });
    assert.equal(run.status, 0, run.stderr);
    const report = JSON.parse(run.stdout.slice(run.stdout.indexOf('{'))) as {
      stats: { suites: number; tests: number; passes: number };
      tests: { fullTitle: string; file: string }[];
    };
    assert.deepEqual(
      { tests: report.stats.tests, passes: report.stats.passes },
      { tests: 1, passes: 1 },
      'test:one ran more than the one file (a config listing every spec?)',
    );
    assert.equal(report.tests[0]!.fullTitle, 'test:one fixture is the one test that ran');
    assert.equal(report.tests[0]!.file, join(ROOT, file));
  });

  it('every `npm run <script>` in CONTRIBUTING.md is a script of package.json', () => {
    const path = join(ROOT, 'CONTRIBUTING.md');
    assert.ok(existsSync(path), 'CONTRIBUTING.md exists');
    const named = [...readFileSync(path, 'utf8').matchAll(/npm run ([\w:-]+)/g)].map((m) => m[1]!);
    assert.ok(named.includes('test:one') && named.includes('generate'), 'it names test:one and generate');
    const missing = [...new Set(named)].filter((name) => scripts()[name] === undefined);
    assert.deepEqual(missing, [], 'CONTRIBUTING.md names scripts package.json lacks');
  });
});
