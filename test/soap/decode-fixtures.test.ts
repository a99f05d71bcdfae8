import assert from 'node:assert/strict';
import { GatewayError } from '../../src/errors';
import type { DecodeWarning } from '../../src/soap/warnings';
import { decodeChunks, normalize, op, responseCases, thrown } from './helpers';

describe('soap/decode: hand-written response fixtures', () => {
  for (const c of responseCases()) {
    describe(`${c.name} (${c.op}, ${c.transport})`, () => {
      const operation = op(c.op);
      const check = (splits: number[]): void => {
        if (c.error) {
          const e = thrown(() => decodeChunks(operation, c.transport, c.xml, splits, c.zoneless));
          assert.ok(e instanceof GatewayError, `expected a GatewayError, got ${String(e)}`);
          assert.equal(e.code, c.error.code, e.message);
          assert.equal(e.operation, operation.name);
          if (c.error.status !== undefined) assert.equal(e.status, c.error.status);
          if (c.error.message !== undefined) assert.equal(e.message, c.error.message);
          if (c.error.bodyIncludes !== undefined && splits.length === 0)
            assert.ok(e.body?.includes(c.error.bodyIncludes), e.body);
        } else {
          const warnings: DecodeWarning[] = [];
          const result = decodeChunks(operation, c.transport, c.xml, splits, c.zoneless, (w) =>
            warnings.push(w),
          );
          assert.deepStrictEqual(normalize(result), c.result);
          assert.deepStrictEqual(
            warnings.map((w) => ({ kind: w.kind, field: w.field, value: w.value })),
            c.warnings ?? [],
          );
          for (const w of warnings) {
            assert.equal(w.operation, operation.name);
            assert.ok(w.message.startsWith(`${operation.name}: `) && w.message.includes(w.value), w.message);
          }
        }
      };
      it(c.about, () => check([]));
      it('gives the same outcome fed one byte at a time', () =>
        check(Array.from({ length: c.xml.length }, (_, i) => i)));
      it('gives the same outcome fed in 7-byte chunks', () =>
        check(Array.from({ length: Math.ceil(c.xml.length / 7) }, (_, i) => i * 7)));
    });
  }
});
