/**
 * Reading an answer we know nothing about: fast-xml-parser, configured for text from an untrusted gateway, into a
 * small namespace-resolved element tree. What is refused, and why:
 * - any markup declaration (`<!DOCTYPE`, `<!ENTITY`, ... anywhere: the parser would read one even inside an
 *   element): no DTD, so no entity of the document's own can exist, and billion-laughs-style expansion cannot
 *   start (SOAP forbids DTDs anyway);
 * - documents that are not well-formed (fast-xml-parser's validator), with more than one root or text after it;
 * - nesting deeper than MAX_DEPTH (the parser's maxNestedTags), element names JavaScript treats specially
 *   (`__proto__`, `constructor`, `prototype`: fast-xml-parser refuses them, and so does the tree below).
 * Entity processing in the parser is off: references are decoded here, once, by the package's XML text codec
 * (the five predefined entities and character references; anything else is an error), so nothing expands.
 * The body's size is bounded before it gets here (the transport's maxResponseBytes).
 */
import { XMLParser, type X2jOptions } from 'fast-xml-parser';
import { decodeText } from '../soap/xml-scanner';

/** Deepest element nesting read (an ASMX answer is rarely deeper than 12). */
export const MAX_DEPTH = 128;

const PARSER_OPTIONS: X2jOptions = {
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  removeNSPrefix: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: false,
  htmlEntities: false,
  cdataPropName: '#cdata',
  commentPropName: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  allowBooleanAttributes: false,
  unpairedTags: [],
  stopNodes: [],
  maxNestedTags: MAX_DEPTH,
  strictReservedNames: true,
};

/** One parser for every answer: its options never change and parse() keeps no state between calls. */
let parser: XMLParser | undefined;

/** An element with its namespace resolved from the declarations in scope. */
export interface XmlElement {
  readonly local: string;
  /** undefined: no namespace (or an undeclared prefix). */
  readonly uri: string | undefined;
  /** Attributes by `{uri}local`, or by `local` for those without a namespace (values decoded). */
  readonly attrs: ReadonlyMap<string, string>;
  /** Child elements and text (text decoded; CDATA as written), in document order. */
  readonly nodes: readonly (XmlElement | string)[];
}

export const attrKey = (uri: string | undefined, local: string): string => (uri ? `{${uri}}${local}` : local);

const FORBIDDEN_NAMES = new Set(['__proto__', 'constructor', 'prototype']);
const XML_NS = 'http://www.w3.org/XML/1998/namespace';
const ROOT_SCOPE: ReadonlyMap<string, string | undefined> = new Map([['xml', XML_NS]]);

/**
 * Refuses `<!` markup other than comments and CDATA sections anywhere in the text: a markup declaration is
 * never legal inside an element, and in the prolog it is a DTD. One pass; `<` cannot occur unescaped in text.
 */
function refuseDeclarations(text: string): void {
  for (let i = text.indexOf('<!'); i >= 0; i = text.indexOf('<!', i)) {
    if (text.startsWith('<!--', i)) {
      const end = text.indexOf('-->', i + 4);
      if (end < 0) return; // unterminated: the validator reports it
      i = end + 3;
    } else if (text.startsWith('<![CDATA[', i)) {
      const end = text.indexOf(']]>', i + 9);
      if (end < 0) return;
      i = end + 3;
    } else {
      throw new Error('DTD is prohibited (a markup declaration in the answer)');
    }
  }
}

type Ordered = Record<string, unknown>;

const localOf = (qname: string): [prefix: string, local: string] => {
  const i = qname.indexOf(':');
  return i < 0 ? ['', qname] : [qname.slice(0, i), qname.slice(i + 1)];
};

const decode = (raw: string): string => decodeText(raw, 0, raw.length);

function toElement(
  name: string,
  node: Ordered,
  parentScope: ReadonlyMap<string, string | undefined>,
): XmlElement {
  const rawAttrs = (node[':@'] ?? {}) as Record<string, string>;
  let scope = parentScope;
  for (const [k, v] of Object.entries(rawAttrs)) {
    if (k === 'xmlns' || k.startsWith('xmlns:')) {
      if (scope === parentScope) scope = new Map(parentScope);
      (scope as Map<string, string | undefined>).set(k === 'xmlns' ? '' : k.slice(6), decode(v) || undefined);
    }
  }
  const attrs = new Map<string, string>();
  for (const [k, v] of Object.entries(rawAttrs)) {
    if (k === 'xmlns' || k.startsWith('xmlns:')) continue;
    const [prefix, local] = localOf(k);
    // Attributes without a prefix have no namespace (not the default one).
    attrs.set(attrKey(prefix ? scope.get(prefix) : undefined, local), decode(v));
  }
  const [prefix, local] = localOf(name);
  if (FORBIDDEN_NAMES.has(local)) throw new Error(`element name <${name}> is not accepted`);
  const nodes: (XmlElement | string)[] = [];
  for (const child of node[name] as Ordered[]) {
    if ('#text' in child) nodes.push(decode(child['#text'] as string));
    else if ('#cdata' in child) {
      for (const c of child['#cdata'] as Ordered[]) nodes.push(String(c['#text'] ?? ''));
    } else {
      const childName = Object.keys(child).find((k) => k !== ':@');
      if (childName !== undefined) nodes.push(toElement(childName, child, scope));
    }
  }
  return { local, uri: scope.get(prefix), attrs, nodes };
}

/** Parses a whole answer into its root element. Throws an Error saying what is wrong. */
export function parseXml(text: string): XmlElement {
  refuseDeclarations(text);
  parser ??= new XMLParser(PARSER_OPTIONS);
  // `true`: fast-xml-parser's validator first (the parser alone accepts unclosed and mismatched tags).
  const top = parser.parse(text, true) as Ordered[];
  // The validator lets text after the root pass.
  const end = text.lastIndexOf('>');
  if (end >= 0 && text.slice(end + 1).trim() !== '') throw new Error('text after the root element');
  const roots = top.filter((n) => !('#text' in n) || String(n['#text']).trim() !== '');
  if (roots.length !== 1) throw new Error(roots.length ? 'more than one root element' : 'no root element');
  const root = roots[0] as Ordered;
  const name = Object.keys(root).find((k) => k !== ':@');
  if (name === undefined || name === '#text' || name === '#cdata')
    throw new Error('text outside the root element');
  return toElement(name, root, ROOT_SCOPE);
}

export const elements = (el: XmlElement): XmlElement[] =>
  el.nodes.filter((n): n is XmlElement => typeof n !== 'string');

export const textOf = (el: XmlElement): string => el.nodes.filter((n) => typeof n === 'string').join('');
