/**
 * The golden requests (test/fixtures/requests/<service>.<Operation>.<transport>.txt): each operation of the
 * catalogue built for each transport from a fixed parameter set. `npm run generate` writes them (and removes
 * those of operations no longer in the catalogue); test/soap/request-golden.test.ts fails when one is stale.
 */
import { join } from 'node:path';
import {
  CATALOGUE,
  DEFAULT_NAMESPACES,
  DEFAULT_PATHS,
  namespaceKind,
  type Catalogue,
} from '../src/catalogue';
import type { OperationDef, ParamDef } from '../src/catalogue/types';
import { buildRequest, type Transport, type WireRequest } from '../src/soap/request';

export const GOLDEN_REQUESTS_DIR = join(__dirname, '..', 'test', 'fixtures', 'requests');
export const GOLDEN_TRANSPORTS: readonly Transport[] = ['soap11', 'soap12', 'get', 'post'];

/** A fixed sample per parameter type: the goldens show escaping, encodings and dates. */
function sample(p: ParamDef, index: number, catalogue: Catalogue): unknown {
  const t = p.type;
  if (p.credential === 'user') return 'demo-user';
  if (p.credential === 'password') return 'p&ss<w>rd "1"';
  switch (t.kind) {
    case 'enum':
      return p.allowed?.[p.allowed.length - 1] ?? catalogue.enumType(t.name).values[1];
    case 'list':
      return ['+4917012345', '+49 170 & <9>'];
    case 'complex':
      throw new Error('no complex parameters');
    default:
      switch (t.name) {
        case 'string':
          return `${p.name} äö€ <&> ${index}`;
        case 'int':
          return 40 + index;
        case 'double':
          return 12.5;
        case 'boolean':
          return true;
        case 'dateTime':
          return new Date(Date.UTC(2026, 10, 22, 10, 0, index));
        case 'base64Binary':
          return Buffer.from([0, 1, 2, 254, 255]);
      }
  }
}

/** Required parameters get a sample value; optional ones are left out (so the goldens show omission/defaults). */
export function goldenParams(op: OperationDef, catalogue: Catalogue = CATALOGUE): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  op.params.forEach((p, i) => {
    if (!p.optional || p.credential) out[p.name] = sample(p, i, catalogue);
  });
  return out;
}

/** The request as a reviewable text: request line, sorted headers, blank line, body. */
export function renderRequest(req: WireRequest): string {
  const headers = Object.keys(req.headers)
    .sort()
    .map((k) => `${k}: ${req.headers[k]}`);
  return [`${req.method} ${req.path}`, ...headers, '', req.body ?? ''].join('\n') + '\n';
}

export const goldenFileName = (op: OperationDef, transport: Transport): string =>
  `${op.service}.${op.name}.${transport}.txt`;

/** One operation's golden request over one transport. */
export function goldenRequest(
  op: OperationDef,
  transport: Transport,
  catalogue: Catalogue = CATALOGUE,
): string {
  return renderRequest(
    buildRequest(op, goldenParams(op, catalogue), {
      transport,
      namespace: DEFAULT_NAMESPACES[namespaceKind(op.service)],
      path: DEFAULT_PATHS[op.service],
      catalogue,
    }),
  );
}

/** Every golden request of the catalogue: file name → text. */
export function goldenRequests(catalogue: Catalogue = CATALOGUE): Map<string, string> {
  const out = new Map<string, string>();
  for (const op of catalogue.operations)
    for (const transport of GOLDEN_TRANSPORTS)
      out.set(goldenFileName(op, transport), goldenRequest(op, transport, catalogue));
  return out;
}
