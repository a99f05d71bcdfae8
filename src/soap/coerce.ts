/**
 * Lenient conversion of caller-supplied JS values into wire text, one function per catalogue type.
 * Messages name the parameter and the expected type but never echo the value (it may be the password).
 */
import type { TypeRef } from '../catalogue/types';
import { CATALOGUE, type Catalogue } from '../catalogue';
import { isBytes, isDate, timeOf } from '../shape';
import {
  MIN_DATE_TEXT,
  ValueFormatError,
  formatBoolean,
  formatDateTime,
  formatDouble,
  formatDoubleParam,
  formatInt,
  parseBase64,
  parseDateTime,
  parseDouble,
  parseInt32,
} from './values';

export class CoerceError extends Error {}

const fail = (name: string, expected: string): never => {
  throw new CoerceError(`parameter ${name}: expected ${expected}`);
};

export function coerceString(name: string, v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'bigint') return String(v);
  if (isDate(v)) return formatDateTime(validDate(name, v));
  return fail(name, 'a string');
}

function validDate(name: string, d: Date): Date {
  const t = timeOf(d);
  if (Number.isNaN(t)) fail(name, 'a valid Date');
  return new Date(t);
}

export function coerceInt(name: string, v: unknown): string {
  if (typeof v === 'number') {
    if (!Number.isInteger(v) || v > 2147483647 || v < -2147483648) fail(name, 'a 32-bit integer');
    return formatInt(v);
  }
  if (typeof v === 'string') {
    try {
      return String(parseInt32(v));
    } catch {
      return fail(name, 'a 32-bit integer');
    }
  }
  return fail(name, 'a 32-bit integer');
}

/** `param` selects the GET/POST spelling of infinities (`Infinity`, not `INF`). */
export function coerceDouble(name: string, v: unknown, param: boolean): string {
  let n: number;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'string') {
    try {
      n = parseDouble(v);
    } catch {
      return fail(name, 'a number');
    }
  } else return fail(name, 'a number');
  return param ? formatDoubleParam(n) : formatDouble(n);
}

export function coerceBoolean(name: string, v: unknown): string {
  if (typeof v === 'boolean') return formatBoolean(v);
  if (v === 1 || v === 0) return formatBoolean(v === 1);
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (s === 'true' || s === 'false') return s;
  }
  return fail(name, 'a boolean');
}

/** Date → UTC with Z; an ISO string is validated and sent as written (keeps a zone-less value zone-less). */
export function coerceDateTime(name: string, v: unknown): string {
  if (v === null) return MIN_DATE_TEXT;
  if (isDate(v)) return formatDateTime(validDate(name, v));
  if (typeof v === 'string') {
    try {
      parseDateTime(v);
    } catch (e) {
      if (e instanceof ValueFormatError) fail(name, 'an ISO date-time');
      throw e;
    }
    return v.trim();
  }
  return fail(name, 'a Date or an ISO date-time string');
}

export function coerceBytes(name: string, v: unknown): Uint8Array {
  if (isBytes(v)) return v;
  if (typeof v === 'string') {
    try {
      return parseBase64(v);
    } catch {
      return fail(name, 'base64 text');
    }
  }
  if (Array.isArray(v) && v.every((b) => Number.isInteger(b) && b >= 0 && b <= 255))
    return Uint8Array.from(v as number[]);
  return fail(name, 'a Buffer, Uint8Array or base64 string');
}

/** `members`: the enum's names, or the parameter's `allowed` subset. */
export function coerceEnum(name: string, v: unknown, members: ReadonlySet<string>): string {
  if (typeof v === 'string' && members.has(v)) return v;
  return fail(name, `one of ${[...members].join(', ')}`);
}

/** A list accepts an array or a single item. */
export function coerceList(name: string, v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  if (v === null || v === undefined) return fail(name, 'a list');
  return [v];
}

/** What GET/POST sends for an absent optional parameter (ASMX requires every key). */
export function wireDefault(
  type: TypeRef,
  allowed?: readonly string[],
  catalogue: Catalogue = CATALOGUE,
): string | undefined {
  if (type.kind === 'enum') return allowed?.[0] ?? catalogue.enumType(type.name).values[0];
  if (type.kind !== 'primitive') return undefined;
  switch (type.name) {
    case 'string':
      return '';
    case 'int':
    case 'double':
      return '0';
    case 'boolean':
      return 'false';
    case 'dateTime':
      return MIN_DATE_TEXT;
    default:
      return undefined;
  }
}
