import type { Catalogue } from '../../catalogue/catalogue';
import type { OperationDef, TypeRef } from '../../catalogue/types';
import {
  ValueFormatError,
  parseBase64,
  parseBoolean,
  parseDateTime,
  parseDouble,
  parseInt32,
} from '../../soap/values';
import type { ParamValues } from '../contract';
import { unableToRead } from './faults';
import { NS } from './ns';
import { dotnetDefault } from './serialize';
import { attrKey, resolveQName, type XmlElement } from './xml-tree';

/**
 * Reads operation parameters out of a SOAP Body the way XmlSerializer does: directed by the catalogue, any
 * order, unknown or mis-namespaced elements ignored, missing ones left at their .NET default (contract.ts).
 */

/** Attribute keys looked up on every parameter, made once (attr() would build each key per call). */
const K = {
  nil: attrKey(NS.xsi, 'nil'),
  null: attrKey(NS.xsi, 'null'),
  xsiType: attrKey(NS.xsi, 'type'),
  href: attrKey('', 'href'),
  ref11: attrKey(NS.enc11, 'ref'),
  ref12: attrKey(NS.enc12, 'ref'),
  id: attrKey('', 'id'),
  id11: attrKey(NS.enc11, 'id'),
  id12: attrKey(NS.enc12, 'id'),
  arrayType11: attrKey(NS.enc11, 'arrayType'),
  itemType12: attrKey(NS.enc12, 'itemType'),
  arraySize12: attrKey(NS.enc12, 'arraySize'),
} as const;

const INPUT_STRING = 'Input string was not in a correct format.';
/** Int32.Parse's OverflowException: digits that do not fit (XmlConvert.ToInt32 calls it). */
const INT32_OVERFLOW = 'Value was either too large or too small for an Int32.';
/** What Int32.Parse takes as a number at all (NumberStyles.Integer): the rest is a format error. */
const INT_DIGITS = /^[\t-\r ]*[+-]?\d+[\t-\r ]*$/;

/** XmlSerializer converts a value once ReadElementString has moved past its end tag: that position is named. */
function valueFault(el: XmlElement, message: string): never {
  throw unableToRead(`There is an error in XML document (${el.readerLine}, ${el.readerColumn}).`, message);
}

/** The first child with this name (what `children.find` gave, without a closure per parameter). */
export function childNamed(parent: XmlElement, local: string, ns: string): XmlElement | undefined {
  for (const c of parent.children) if (c.local === local && c.ns === ns) return c;
  return undefined;
}

function isNil(el: XmlElement): boolean {
  if (el.attrs.size === 0) return false;
  const nil = el.attrs.get(K.nil) ?? el.attrs.get(K.null);
  return nil !== undefined && (nil.trim() === 'true' || nil.trim() === '1');
}

/** The inner message of the exception XmlConvert (or the enum reader) throws for this text. */
function formatMessage(type: TypeRef, text: string): string {
  if (type.kind !== 'primitive') return INPUT_STRING;
  if (type.name === 'dateTime') return `The string '${text}' is not a valid AllXsd value.`;
  if (type.name === 'int' && INT_DIGITS.test(text)) return INT32_OVERFLOW;
  return INPUT_STRING;
}

/** int, double, boolean, dateTime and enums: .NET value types, which cannot hold null. */
function isValueType(type: TypeRef): boolean {
  return (
    type.kind === 'enum' ||
    (type.kind === 'primitive' && type.name !== 'string' && type.name !== 'base64Binary')
  );
}

function readScalar(el: XmlElement, type: TypeRef, catalogue: Catalogue): unknown {
  const text = el.text;
  try {
    if (type.kind === 'enum') {
      const def = catalogue.enumType(type.name);
      const name = text.trim();
      if (!def.values.includes(name))
        valueFault(el, `Instance validation error: '${text}' is not a valid value for ${type.name}.`);
      return name;
    }
    if (type.kind !== 'primitive') return undefined;
    switch (type.name) {
      case 'string':
        return text;
      case 'int':
        return parseInt32(text);
      case 'double':
        return parseDouble(text);
      case 'boolean':
        return parseBoolean(text);
      case 'dateTime':
        return parseDateTime(text);
      case 'base64Binary':
        return parseBase64(text);
    }
  } catch (err) {
    if (err instanceof ValueFormatError) valueFault(el, formatMessage(type, text));
    throw err;
  }
  return undefined;
}

// ---------- document/literal

function readLiteral(el: XmlElement, type: TypeRef, ns: string, catalogue: Catalogue): unknown {
  // XmlSerializer checks xsi:nil only where null fits: a value type is read with ReadElementString, so
  // <JobPriority xsi:nil="true" /> is the empty string, which the number, date or enum reader refuses (a Client
  // fault), and a nil element with text is read as that text.
  if (!isValueType(type) && isNil(el)) return undefined;
  if (type.kind === 'list') {
    return el.children
      .filter((c) => c.local === type.itemElement && c.ns === ns)
      .map((c) => readLiteral(c, type.item, ns, catalogue));
  }
  if (type.kind === 'complex') return undefined;
  return readScalar(el, type, catalogue);
}

/** Each operation's parameter names in order, all undefined (made once per operation). */
const blanks = new WeakMap<OperationDef, ParamValues>();

/**
 * A values object that already has every parameter of `op`: a copy of one template is made at its final size,
 * where adding the parameters one by one to `{}` reallocates its property store as it grows.
 */
export function blankParams(op: OperationDef): ParamValues {
  let blank = blanks.get(op);
  if (!blank) {
    blank = {};
    for (const p of op.params) blank[p.name] = undefined;
    blanks.set(op, blank);
  }
  return { ...blank };
}

export function readLiteralParams(
  op: OperationDef,
  wrapper: XmlElement | undefined,
  ns: string,
  catalogue: Catalogue,
): ParamValues {
  const values = blankParams(op);
  const matches = wrapper !== undefined && wrapper.local === op.name && wrapper.ns === ns;
  for (const p of op.params) {
    const el = matches ? childNamed(wrapper, p.name, ns) : undefined;
    values[p.name] = el ? readLiteral(el, p.type, ns, catalogue) : dotnetDefault(p.type, catalogue);
  }
  return values;
}

// ---------- RPC/encoded

/** Follows `href="#id"` (1.1 multi-ref) or `enc:ref="id"` (1.2) to the element holding the value. */
function deref(el: XmlElement, body: XmlElement, depth = 0): XmlElement {
  if (depth > 8) return el;
  const href = el.attrs.get(K.href);
  const ref = el.attrs.get(K.ref12) ?? el.attrs.get(K.ref11);
  const id = href !== undefined ? href.trim().replace(/^#/, '') : ref?.trim();
  if (id === undefined) return el;
  const target = findById(body, id);
  return target ? deref(target, body, depth + 1) : el;
}

const idIndexes = new WeakMap<XmlElement, Map<string, XmlElement>>();

/** ids of the whole Body, indexed once per request (a scan per reference would be quadratic). */
function findById(body: XmlElement, id: string): XmlElement | undefined {
  let index = idIndexes.get(body);
  if (!index) {
    index = new Map();
    const stack = [...body.children];
    for (let e = stack.pop(); e; e = stack.pop()) {
      const own = e.attrs.get(K.id) ?? e.attrs.get(K.id12) ?? e.attrs.get(K.id11);
      if (own !== undefined && !index.has(own)) index.set(own, e);
      stack.push(...e.children);
    }
    idIndexes.set(body, index);
  }
  return index.get(id);
}

function isEncodedArray(el: XmlElement): boolean {
  if (el.attrs.get(K.arrayType11) !== undefined) return true;
  if (el.attrs.get(K.itemType12) !== undefined || el.attrs.get(K.arraySize12) !== undefined) return true;
  const xsiType = el.attrs.get(K.xsiType);
  if (xsiType === undefined) return false;
  const q = resolveQName(el, xsiType);
  return q.local === 'Array' && (q.ns === NS.enc11 || q.ns === NS.enc12);
}

function readEncoded(raw: XmlElement, type: TypeRef, body: XmlElement, catalogue: Catalogue): unknown {
  const el = deref(raw, body);
  // The encoded reader (ReadReferencingElement) returns null for xsi:nil before it looks at the type; a value
  // type member then keeps its default (0, the first enum member, DateTime.MinValue) and the call goes on.
  if (isNil(el)) return dotnetDefault(type, catalogue);
  if (type.kind === 'list') {
    // The .NET reader does not see an array without arrayType/itemType: the parameter stays null.
    if (!isEncodedArray(el)) return undefined;
    return el.children.map((c) => readEncoded(c, type.item, body, catalogue));
  }
  if (type.kind === 'complex') return undefined;
  return readScalar(el, type, catalogue);
}

export function readEncodedParams(
  op: OperationDef,
  wrapper: XmlElement | undefined,
  ns: string,
  body: XmlElement,
  catalogue: Catalogue,
): ParamValues {
  const values: ParamValues = {};
  const matches = wrapper !== undefined && wrapper.local === op.name && wrapper.ns === ns;
  for (const p of op.params) {
    const el = matches ? childNamed(wrapper, p.name, '') : undefined;
    values[p.name] = el ? readEncoded(el, p.type, body, catalogue) : dotnetDefault(p.type, catalogue);
  }
  return values;
}
