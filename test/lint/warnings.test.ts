import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const fixture = (name: string): string => path.join('test', 'lint', 'fixtures', 'warnings', name);

/** Runs mocha as the suites do (the hook of test/warnings.ts loaded) on one fixture spec. */
function run(spec: string): { status: number | null; out: string } {
  const r = spawnSync(
    process.execPath,
    [
      require.resolve('mocha/bin/mocha.js'),
      '--no-config',
      '-r',
      'tsx/cjs',
      '-r',
      'test/warnings.ts',
      '--extension',
      'ts',
      '--reporter',
      'dot',
      spec,
    ],
    { cwd: ROOT, encoding: 'utf8', timeout: 60_000 },
  );
  return { status: r.status, out: `${r.stdout}\n${r.stderr}` };
}

// Once `npm test` printed DEP0137 (a FileHandle closed by the garbage collector) and passed.
describe('lint: warnings that mean a bug fail the test run (test/warnings.ts)', function () {
  this.timeout(60_000);

  it('a FileHandle left open, one dropped unclosed (DEP0137) and a deprecated call of ours each fail the run, naming where', () => {
    const { status, out } = run(fixture('leaky.fixture.ts'));
    assert.equal(status, 1, out);
    assert.match(out, /3 passing/, 'the tests themselves pass');
    assert.match(out, /is still open at the end of the run; opened\s+at .*leaky\.fixture\.ts:10/);
    assert.match(
      out,
      /Closing file descriptor \d+ on garbage collection: a FileHandle was never closed; opened\s+at .*leaky\.fixture\.ts:15/,
    );
    assert.match(out, /DeprecationWarning: this fixture is deprecated\s+at .*leaky\.fixture\.ts:21/);
  });

  it('a run that closes what it opens passes', () => {
    const { status, out } = run(fixture('clean.fixture.ts'));
    assert.equal(status, 0, out);
  });
});
