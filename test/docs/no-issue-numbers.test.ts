/**
 * Users and contributors cannot look up the project's internal issue numbers: README, docs, node help, message
 * catalogues, examples, source, scripts, benchmarks and tests say the thing itself ("one reader per
 * configuration"), never "issue 20 §1". History belongs in CHANGELOG.md and the commit messages; the hand-written
 * history of the benchmark runs (bench/analysis.md) is a diary by design.
 */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../scripts/lib/package';

/** "issue 20", "Issue 19 §5", "issues 14 and 15", "issue #7". */
export const ISSUE_NUMBER = /\bissues? ?#?\d+/i;

// this file names the forms it looks for
const HISTORY = new Set(['CHANGELOG.md', 'bench/analysis.md', 'test/docs/no-issue-numbers.test.ts']);

/** Every text file git tracks, but the history and data (results, fixtures of recorded answers). */
function trackedTexts(): string[] {
  const out = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' });
  return out
    .split('\0')
    .filter((f) => f !== '' && !HISTORY.has(f))
    .filter((f) => /\.(ts|js|mjs|cjs|md|html|json)$/.test(f))
    .filter((f) => !/^bench\/(results\.json|soak\/results\/)|^test\/fixtures\/|package-lock\.json$/.test(f));
}

describe('docs: no internal issue numbers', () => {
  it('matches the forms a reference takes', () => {
    for (const s of ['(issue 20 §1)', 'Issue 19 §5.', 'issues 14 and 15', 'issue #7'])
      assert.match(s, ISSUE_NUMBER, s);
    for (const s of ['the issue of a number', 'tissue 3', 'issued 3 times'])
      assert.doesNotMatch(s, ISSUE_NUMBER, s);
  });

  it('README, docs, help, examples, src, scripts, bench and tests say the thing itself', () => {
    const files = trackedTexts();
    assert.ok(files.includes('README.md') && files.some((f) => f.startsWith('src/')), 'the files are found');
    const found: string[] = [];
    for (const f of files) {
      const lines = readFileSync(join(ROOT, f), 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (ISSUE_NUMBER.test(line)) found.push(`${f}:${i + 1}: ${line.trim().slice(0, 120)}`);
      });
    }
    assert.deepEqual(found, [], `say the thing itself instead of the issue number:\n${found.join('\n')}`);
  });
});
