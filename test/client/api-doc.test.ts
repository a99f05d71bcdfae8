import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { OPERATIONS } from '../../src/catalogue';
import { methodName } from '../../src/client';
import { API_DOC_PATH } from '../../scripts/gen-api-doc';

describe('docs/api.md', () => {
  const doc = readFileSync(API_DOC_PATH, 'utf8');

  it('names every operation and its method', () => {
    for (const op of OPERATIONS) {
      assert.match(doc, new RegExp(`\\| \`${methodName(op)}\` +\\| ${op.name}\\b`), op.name);
    }
  });

  it('documents every error code', () => {
    for (const code of [
      'AUTH',
      'REJECTED',
      'FAULT',
      'HTTP',
      'TIMEOUT',
      'NETWORK',
      'PARSE',
      'CONFIG',
      'VALIDATION',
      'QUEUE_FULL',
      'BUDGET',
    ]) {
      assert.ok(doc.includes(`\`${code}\``), code);
    }
  });
});
