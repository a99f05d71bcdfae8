import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_NAMESPACES, DEFAULT_PATHS, OPERATIONS, namespaceKind } from '../../src/catalogue';
import { buildRequest, type Transport, type WireRequest } from '../../src/soap/request';
import { FIXTURES } from './helpers';
import { goldenParams } from './params';

const TRANSPORTS: Transport[] = ['soap11', 'soap12', 'get', 'post'];
const DIR = join(FIXTURES, 'requests');
const UPDATE = process.env.UPDATE_GOLDEN === '1';

/** The request as a reviewable text: request line, sorted headers, blank line, body. */
export function render(req: WireRequest): string {
  const headers = Object.keys(req.headers)
    .sort()
    .map((k) => `${k}: ${req.headers[k]}`);
  return [`${req.method} ${req.path}`, ...headers, '', req.body ?? ''].join('\n') + '\n';
}

describe('soap/request: golden requests for every operation × transport (UPDATE_GOLDEN=1 rewrites them)', () => {
  if (UPDATE) mkdirSync(DIR, { recursive: true });
  for (const op of OPERATIONS) {
    for (const transport of TRANSPORTS) {
      const file = join(DIR, `${op.service}.${op.name}.${transport}.txt`);
      it(`${op.service}/${op.name} over ${transport}`, () => {
        const req = buildRequest(op, goldenParams(op), {
          transport,
          namespace: DEFAULT_NAMESPACES[namespaceKind(op.service)],
          path: DEFAULT_PATHS[op.service],
        });
        const text = render(req);
        if (UPDATE) writeFileSync(file, text);
        assert.ok(existsSync(file), `missing golden ${file} (run with UPDATE_GOLDEN=1)`);
        assert.equal(text, readFileSync(file, 'utf8'));
      });
    }
  }
});
