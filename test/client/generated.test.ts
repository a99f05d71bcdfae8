import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { GENERATED_TYPES_PATH, generateClientTypes } from '../../scripts/gen-client-types';

describe('generated client types', () => {
  it('are up to date with the catalogue (run npx tsx scripts/gen-client-types.ts)', async () => {
    assert.equal(readFileSync(GENERATED_TYPES_PATH, 'utf8'), await generateClientTypes());
  });
});
