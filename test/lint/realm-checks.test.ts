import assert from 'node:assert/strict';
import * as path from 'node:path';
import { ESLint } from 'eslint';

// eslint.config.mjs refuses realm-bound checks in src/: a msg from a function node carries objects,
// arrays, Dates and byte arrays of another realm. Linted as if the code were a file of src/.
const ROOT = path.join(__dirname, '..', '..');

describe('lint: no instanceof or prototype checks on values in src/ (values from any realm)', function () {
  this.timeout(60_000);
  let eslint: ESLint;
  before(() => {
    eslint = new ESLint({ cwd: ROOT });
  });
  const problems = async (code: string, file = 'src/nodes/example.ts'): Promise<string[]> => {
    const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
    return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-syntax').map((m) => m.message);
  };

  for (const code of [
    'export const f = (v: unknown): boolean => v instanceof Date;',
    'export const f = (v: unknown): boolean => v instanceof Uint8Array;',
    'export const f = (v: unknown): boolean => v instanceof Buffer;',
    'export const f = (v: unknown): boolean => v instanceof Array;',
    'export const f = (v: unknown): boolean => v instanceof Object;',
    'export const f = (v: unknown): boolean => Buffer.isBuffer(v);',
    'export const f = (v: object): boolean => Object.getPrototypeOf(v) === Object.prototype;',
    'export const f = (v: object): boolean => Object.prototype !== Object.getPrototypeOf(v);',
  ]) {
    it(`refuses: ${code.slice(code.indexOf('=>') + 3)}`, async () => {
      const found = await problems(code);
      assert.equal(found.length, 1, code);
      assert.match(found[0]!, /src\/shape\.ts/);
    });
  }

  it('lets the shape checks, Errors and own classes pass', async () => {
    const code = [
      "import { isDate } from '../shape';",
      'class Own {}',
      'export const a = (v: unknown): boolean => isDate(v) || Array.isArray(v);',
      'export const b = (e: unknown): boolean => e instanceof Error || e instanceof Own;',
      'export const c = Object.prototype.hasOwnProperty;',
    ].join('\n');
    assert.deepEqual(await problems(code), []);
  });

  it('holds for the emulator too, and not for tests', async () => {
    const code = 'export const f = (v: unknown): boolean => v instanceof Date;';
    assert.equal((await problems(code, 'src/emulator/state/example.ts')).length, 1);
    assert.deepEqual(await problems(code, 'test/client/example.test.ts'), []);
  });
});
