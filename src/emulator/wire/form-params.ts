import type { Catalogue } from '../../catalogue/catalogue';
import type { OperationDef, TypeRef } from '../../catalogue/types';
import { ValueFormatError, parseDateTime } from '../../soap/values';
import type { ParamValues } from '../contract';
import { FormError } from './faults';

/**
 * HTTP GET/POST parameters (asmx-wire §7.2): names case-insensitive, arrays as repeated keys, byte arrays as
 * repeated decimal bytes, scalars converted like Convert.ChangeType (not XML Schema rules).
 */

function cannotConvert(
  value: string,
  type: string,
  inner = 'Input string was not in a correct format.',
): never {
  throw new FormError(
    'System.ArgumentException',
    `Cannot convert ${value} to ${type}.\r\nParameter name: type`,
    {
      type: 'System.FormatException',
      message: inner,
    },
  );
}

const INT_RE = /^\s*[+-]?\d+\s*$/;
const DOUBLE_RE = /^\s*[+-]?(\d{1,3}(,\d{3})+|\d+)?(\.\d*)?([eE][+-]?\d+)?\s*$/;

/** `named`: the type the error names, when it is not the integer type itself (an enum's underlying Int32). */
function convertInt(value: string, min: number, max: number, typeName: string, named = typeName): number {
  if (!INT_RE.test(value)) cannotConvert(value, named);
  const n = Number(value.trim());
  if (n < min || n > max)
    cannotConvert(
      value,
      named,
      `Value was either too large or too small for ${typeName.replace('System.', 'an ')}.`,
    );
  return n;
}

function convertDouble(value: string): number {
  const s = value.trim();
  if (s === 'NaN') return NaN;
  if (s === 'Infinity' || s === '+Infinity') return Infinity;
  if (s === '-Infinity') return -Infinity;
  if (!DOUBLE_RE.test(s) || !/\d/.test(s)) cannotConvert(value, 'System.Double');
  return Number(s.replace(/,/g, ''));
}

function convertDate(value: string): Date | null {
  try {
    return parseDateTime(value);
  } catch (err) {
    if (!(err instanceof ValueFormatError)) throw err;
  }
  // DateTime.Parse also takes forms such as `11/22/2026 10:00` (invariant culture: month first).
  const m = /^\s*(\d{1,2})\/(\d{1,2})\/(\d{4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?)?\s*$/.exec(value);
  if (m) {
    const [, mo, d, y, h = '0', mi = '0', s = '0'] = m;
    const t = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
    if (!Number.isNaN(t) && Number(mo) <= 12 && Number(d) <= 31) return new Date(t);
  }
  return cannotConvert(
    value,
    'System.DateTime',
    `The string was not recognized as a valid DateTime. There is an unknown word starting at index 0.`,
  );
}

/**
 * Enum.Parse(type, value): a member name (exact case), or any number that fits the underlying Int32, a member or
 * not. A number that is no member is returned as its digits (e.g. '99'): the operation then meets a value it does
 * not know and answers as it does for one (docs/assumptions.md).
 */
function convertEnum(value: string, typeName: string, catalogue: Catalogue): string {
  const def = catalogue.enumType(typeName);
  const s = value.trim();
  if (def.values.includes(s)) return s;
  if (/^[+-]?\d+$/.test(s)) {
    const n = convertInt(value, -2147483648, 2147483647, 'System.Int32', typeName);
    return def.values[n] ?? String(n);
  }
  return cannotConvert(value, typeName, `Requested value '${s}' was not found.`);
}

function convert(value: string, type: TypeRef, catalogue: Catalogue): unknown {
  if (type.kind === 'enum') return convertEnum(value, type.name, catalogue);
  if (type.kind !== 'primitive') return undefined;
  switch (type.name) {
    case 'string':
      return value;
    case 'int':
      return convertInt(value, -2147483648, 2147483647, 'System.Int32');
    case 'double':
      return convertDouble(value);
    case 'boolean': {
      const s = value.trim().toLowerCase();
      if (s === 'true') return true;
      if (s === 'false') return false;
      return cannotConvert(value, 'System.Boolean', 'String was not recognized as a valid Boolean.');
    }
    case 'dateTime':
      return convertDate(value);
    case 'base64Binary':
      return value;
  }
}

/** Groups a query string or form body by lower-cased key, keeping every repeated value. */
export function collectForm(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [k, v] of new URLSearchParams(text)) {
    const key = k.toLowerCase();
    const list = out.get(key);
    if (list) list.push(v);
    else out.set(key, [v]);
  }
  return out;
}

export function readFormParams(
  op: OperationDef,
  form: Map<string, string[]>,
  catalogue: Catalogue,
): ParamValues {
  const values: ParamValues = {};
  for (const p of op.params) {
    const given = form.get(p.name.toLowerCase());
    const isArray = p.type.kind === 'list' || (p.type.kind === 'primitive' && p.type.name === 'base64Binary');
    if (isArray) {
      if (!given)
        throw new FormError(
          'System.NullReferenceException',
          'Object reference not set to an instance of an object.',
        );
      if (p.type.kind === 'list') {
        const item = p.type.item;
        values[p.name] = given.map((v) => convert(v, item, catalogue));
      } else {
        values[p.name] = Buffer.from(given.map((v) => convertInt(v, 0, 255, 'System.Byte')));
      }
      continue;
    }
    if (!given) throw new FormError('System.InvalidOperationException', `Missing parameter: ${p.name}.`);
    values[p.name] = convert(given.join(','), p.type, catalogue);
  }
  return values;
}
