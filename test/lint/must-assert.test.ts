import * as path from 'node:path';
import { RuleTester } from 'eslint';
import tseslint from 'typescript-eslint';
import { mustAssert } from '../../scripts/lint/test-must-assert.cjs';

// RuleTester makes its own mocha tests, one per case below; each fails when the rule decides otherwise.
RuleTester.describe = describe;
RuleTester.it = it;
const tester = new RuleTester({ languageOptions: { parser: tseslint.parser } });
const filename = path.join(__dirname, 'fixtures', 'case.test.ts');

describe('lint: tests/must-assert (every it() asserts)', () => {
  tester.run('must-assert', mustAssert, {
    valid: [
      { filename, code: `it('a', () => { assert.equal(1, 1); });` },
      { filename, code: `it('a', async () => { await assert.rejects(f()); });` },
      { filename, code: `it('a', () => { assert(true); });` },
      { filename, code: `it('a', () => { assert.strict.equal(1, 1); });` },
      { filename, code: `it('a', () => { expectRejects(f); });` },
      { filename, code: `it('a', () => { helpers.assertGolden('x'); });` },
      { filename, code: `it('a', () => { [1].forEach((x) => assert.ok(x)); });` },
      {
        filename,
        code: `describe('d', () => { const check = (x) => { assert.ok(x); }; it('a', () => check(1)); });`,
      },
      {
        filename,
        code: `function deep() { assert.ok(1); } function mid() { deep(); } it('a', () => mid());`,
      },
      { filename, code: `import { checkAnswer } from './asserting-helper'; it('a', () => checkAnswer(42));` },
    ],
    invalid: [
      // The debug script this rule was made for: it logs and asserts nothing.
      {
        filename,
        code: `it('x', async () => { const r = await client.query(); console.log(r); });`,
        errors: [{ messageId: 'noAssertion' }],
      },
      { filename, code: `it('pending');`, errors: [{ messageId: 'pending' }] },
      { filename, code: `it.only('a', () => { run(); });`, errors: [{ messageId: 'noAssertion' }] },
      {
        filename,
        code: `const log = (x) => console.log(x); it('a', () => log(1));`,
        errors: [{ messageId: 'noAssertion' }],
      },
      {
        filename,
        code: `import { logAnswer } from './asserting-helper'; it('a', () => logAnswer(42));`,
        errors: [{ messageId: 'noAssertion' }],
      },
      {
        filename,
        code: `function a() { b(); } function b() { a(); } it('a', () => a());`,
        errors: [{ messageId: 'noAssertion' }],
      },
    ],
  });
});
