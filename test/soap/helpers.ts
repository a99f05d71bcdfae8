import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { findOperation } from '../../src/catalogue';
import type { OperationDef, ServiceName } from '../../src/catalogue/types';
import { createResponseDecoder } from '../../src/soap/decode';
import type { Transport } from '../../src/soap/request';
import type { DecodeWarning } from '../../src/soap/warnings';

export const FIXTURES = join(__dirname, '..', 'fixtures');

/** JSON-safe form of a decoded value: Dates, non-finite numbers, -0 and Buffers spelled out; undefined dropped. */
export function normalize(v: unknown): unknown {
  if (v instanceof Date) return { $date: Number.isNaN(v.getTime()) ? 'Invalid Date' : v.toISOString() };
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return { $number: 'NaN' };
    if (v === Infinity) return { $number: 'INF' };
    if (v === -Infinity) return { $number: '-INF' };
    if (Object.is(v, -0)) return { $number: '-0' };
    return v;
  }
  if (Buffer.isBuffer(v)) return { $base64: v.toString('base64') };
  if (Array.isArray(v)) return v.map(normalize);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = normalize(x);
    return out;
  }
  return v;
}

export function op(key: string): OperationDef {
  const [service, name] = key.split('/') as [ServiceName, string];
  const found = findOperation(service, name);
  if (!found) throw new Error(`no operation ${key}`);
  return found;
}

export interface ResponseCase {
  name: string;
  xml: Buffer;
  about: string;
  op: string;
  transport: Transport;
  zoneless?: 'utc' | 'local';
  result?: unknown;
  error?: { code: string; status?: string; message?: string; bodyIncludes?: string };
  /** The warnings the answer gives (kind, field, value), in order; absent: none. */
  warnings?: Array<Pick<DecodeWarning, 'kind' | 'field' | 'value'>>;
}

export function responseCases(): ResponseCase[] {
  const dir = join(FIXTURES, 'responses');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const name = f.slice(0, -5);
      const meta = JSON.parse(readFileSync(join(dir, f), 'utf8')) as Omit<ResponseCase, 'name' | 'xml'>;
      return { ...meta, name, xml: readFileSync(join(dir, `${name}.xml`)) };
    });
}

/** Decodes `bytes` fed in the given chunks (split points as offsets). */
export function decodeChunks(
  operation: OperationDef,
  transport: Transport,
  bytes: Uint8Array,
  splits: number[] = [],
  zoneless?: 'utc' | 'local',
  warn?: (w: DecodeWarning) => void,
): unknown {
  const d = createResponseDecoder(operation, { transport, ...(zoneless ? { zoneless } : {}), warn });
  let at = 0;
  for (const s of [...splits].sort((a, b) => a - b)) {
    if (s <= at || s >= bytes.length) continue;
    d.write(bytes.subarray(at, s));
    at = s;
  }
  d.write(bytes.subarray(at));
  return d.end();
}

/** Runs fn and returns what it threw (or fails when it returns). */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected an exception');
}
