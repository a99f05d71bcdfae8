import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { OPERATIONS } from '../../src/catalogue';
import {
  GOLDEN_REQUESTS_DIR,
  GOLDEN_TRANSPORTS,
  goldenFileName,
  goldenRequest,
  goldenRequests,
} from '../../scripts/gen-golden-requests';

// The goldens are written by `npm run generate` (scripts/gen-golden-requests.ts); review their diff.
describe('soap/request: golden requests for every operation × transport (npm run generate writes them)', () => {
  for (const op of OPERATIONS) {
    for (const transport of GOLDEN_TRANSPORTS) {
      const file = join(GOLDEN_REQUESTS_DIR, goldenFileName(op, transport));
      it(`${op.service}/${op.name} over ${transport}`, () => {
        assert.ok(existsSync(file), `missing golden ${file}: run npm run generate`);
        assert.equal(
          goldenRequest(op, transport),
          readFileSync(file, 'utf8'),
          `stale ${file}: run npm run generate`,
        );
      });
    }
  }

  it('holds no golden of an operation the catalogue lacks (npm run generate removes them)', () => {
    const expected = goldenRequests();
    const orphans = readdirSync(GOLDEN_REQUESTS_DIR).filter((f) => !expected.has(f));
    assert.deepEqual(orphans, [], 'run npm run generate');
  });
});
