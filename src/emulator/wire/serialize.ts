import type { Catalogue } from '../../catalogue/catalogue';
import type { TypeRef } from '../../catalogue/types';
import { escapeText } from '../../soap/escape';
import { isBytes, isDate } from '../../shape';
import {
  MIN_DATE_TEXT,
  formatBase64,
  formatBoolean,
  formatDateTimeWithOffset,
  formatDouble,
} from '../../soap/values';

/**
 * Literal XmlSerializer output for one value, as template strings. `pretty` gives the GET/POST form
 * (2-space indent, CRLF); SOAP bodies are written on one line.
 */

const indent = (pretty: boolean, depth: number): string => (pretty ? '\r\n' + '  '.repeat(depth) : '');

/** Text of a primitive or enum value (unescaped). */
export function scalarText(type: TypeRef, value: unknown): string {
  if (type.kind === 'enum') return String(value);
  if (type.kind !== 'primitive') return '';
  switch (type.name) {
    case 'string':
      return String(value);
    case 'int': {
      const n = Math.trunc(Number(value));
      return Number.isFinite(n) ? String(n) : '0';
    }
    case 'double':
      return formatDouble(Number(value));
    case 'boolean':
      return formatBoolean(Boolean(value));
    case 'dateTime':
      if (value === null) return MIN_DATE_TEXT;
      if (isDate(value)) return formatDateTimeWithOffset(value, 0);
      return String(value);
    case 'base64Binary':
      return isBytes(value) ? formatBase64(value) : String(value);
  }
}

/**
 * .NET's default of a value type (int, double, boolean, dateTime, enum): what a field nobody set holds, and what
 * an absent parameter becomes. Undefined for reference types (string, base64Binary, lists, classes).
 */
export function dotnetDefault(type: TypeRef, catalogue: Catalogue): unknown {
  if (type.kind === 'enum') return catalogue.enumType(type.name).values[0];
  if (type.kind !== 'primitive') return undefined;
  switch (type.name) {
    case 'int':
    case 'double':
      return 0;
    case 'boolean':
      return false;
    case 'dateTime':
      return null;
    default:
      return undefined;
  }
}

/** True for the types XmlSerializer always writes (a value type cannot be null). */
export const isValueType = (type: TypeRef): boolean =>
  type.kind === 'enum' ||
  (type.kind === 'primitive' && type.name !== 'string' && type.name !== 'base64Binary');

export function literalElement(
  name: string,
  type: TypeRef,
  value: unknown,
  depth: number,
  pretty: boolean,
  catalogue: Catalogue,
): string {
  // A null reference is omitted; a value type is always written, with its default when nothing was set.
  if (value === undefined || value === null) {
    if (!isValueType(type)) return '';
    value = dotnetDefault(type, catalogue);
  }
  const pad = indent(pretty, depth);
  if (type.kind === 'list') {
    if (!Array.isArray(value)) return '';
    if (value.length === 0) return `${pad}<${name} />`;
    let inner = '';
    for (const item of value) {
      inner +=
        item === null || item === undefined
          ? `${indent(pretty, depth + 1)}<${type.itemElement} xsi:nil="true" />`
          : literalElement(type.itemElement, type.item, item, depth + 1, pretty, catalogue);
    }
    return `${pad}<${name}>${inner}${pad}</${name}>`;
  }
  if (type.kind === 'complex') {
    const inner = complexContent(type.name, value, depth + 1, pretty, catalogue);
    return inner ? `${pad}<${name}>${inner}${pad}</${name}>` : `${pad}<${name} />`;
  }
  const text = escapeText(scalarText(type, value));
  return text ? `${pad}<${name}>${text}</${name}>` : `${pad}<${name} />`;
}

/** The fields of a complex value in declaration order: reference fields left undefined are omitted. */
export function complexContent(
  typeName: string,
  value: unknown,
  depth: number,
  pretty: boolean,
  catalogue: Catalogue,
): string {
  if (typeof value !== 'object' || value === null) return '';
  const record = value as Record<string, unknown>;
  let out = '';
  for (const f of catalogue.complexType(typeName).fields)
    out += literalElement(f.name, f.type, record[f.name], depth, pretty, catalogue);
  return out;
}
