/**
 * Reading an answer we know nothing about into a small namespace-resolved element tree, with fast-xml-parser
 * configured for text from an untrusted gateway. The answer reaching it has passed the gate (gate.ts) while it was
 * read: well-formed, no DTD, and within the limits of elements, nesting and text, so parsing and the tree are
 * bounded. What is refused here as well, and why:
 * - any markup declaration (`<!DOCTYPE`, `<!ENTITY`, ... anywhere: the parser would read one even inside an
 *   element): no DTD, so no entity of the document's own can exist, and billion-laughs-style expansion cannot
 *   start (SOAP forbids DTDs anyway);
 * - nesting deeper than the limit (the parser's maxNestedTags), element names JavaScript treats specially
 *   (`__proto__`, `constructor`, `prototype`: fast-xml-parser refuses them, and so does the tree below).
 * Entity processing in the parser is off: references are decoded here, once, by the package's XML text codec
 * (the five predefined entities and character references; anything else is an error), so nothing expands.
 * The tree is built without recursion: a deep or wide answer cannot exhaust the stack.
 */
import { XMLParser, type X2jOptions } from 'fast-xml-parser';
import { decodeText } from '../soap/xml-scanner';

const parserOptions = (maxDepth: number): X2jOptions => ({
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
  maxNestedTags: maxDepth,
  strictReservedNames: true,
});

/** One parser per depth limit (in practice one): its options never change and parse() keeps no state. */
const parsers = new Map<number, XMLParser>();

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
type Scope = ReadonlyMap<string, string | undefined>;
const ROOT_SCOPE: Scope = new Map([['xml', XML_NS]]);
/** Most elements have no attributes: they share this one (never written). */
const NO_ATTRS: ReadonlyMap<string, string> = new Map();

/**
 * Refuses `<!` markup other than comments and CDATA sections anywhere in the text: a markup declaration is
 * never legal inside an element, and in the prolog it is a DTD. One pass; `<` cannot occur unescaped in text.
 */
function refuseDeclarations(text: string): void {
  for (let i = text.indexOf('<!'); i >= 0; i = text.indexOf('<!', i)) {
    if (text.startsWith('<!--', i)) {
      const end = text.indexOf('-->', i + 4);
      if (end < 0) return; // unterminated: the parser reports it
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

/** A node of fast-xml-parser's ordered output: `{ name: children, ':@': attributes }`, `{ '#text': text }`. */
export type Ordered = Record<string, unknown>;

/** Prefix and local part of each qualified name seen: a document repeats a few names many times. */
class Names {
  private readonly seen = new Map<string, readonly [string, string]>();
  split(qname: string): readonly [prefix: string, local: string] {
    let parts = this.seen.get(qname);
    if (parts === undefined) {
      const i = qname.indexOf(':');
      parts = i < 0 ? ['', qname] : [qname.slice(0, i), qname.slice(i + 1)];
      this.seen.set(qname, parts);
    }
    return parts;
  }
}

const decode = (raw: string): string => decodeText(raw, 0, raw.length);

/** The element's namespace scope and attributes from its raw attributes, and the element (children to come). */
function element(
  name: string,
  node: Ordered,
  parentScope: Scope,
  names: Names,
): [XmlElement & { nodes: (XmlElement | string)[] }, Scope] {
  const rawAttrs = node[':@'] as Record<string, string> | undefined;
  let scope = parentScope;
  let attrs = NO_ATTRS;
  if (rawAttrs !== undefined) {
    for (const k in rawAttrs) {
      if (k === 'xmlns' || k.startsWith('xmlns:')) {
        if (scope === parentScope) scope = new Map(parentScope);
        (scope as Map<string, string | undefined>).set(
          k === 'xmlns' ? '' : k.slice(6),
          decode(rawAttrs[k] as string) || undefined,
        );
      }
    }
    const own = new Map<string, string>();
    for (const k in rawAttrs) {
      if (k === 'xmlns' || k.startsWith('xmlns:')) continue;
      const [prefix, local] = names.split(k);
      // Attributes without a prefix have no namespace (not the default one).
      own.set(attrKey(prefix ? scope.get(prefix) : undefined, local), decode(rawAttrs[k] as string));
    }
    if (own.size > 0) attrs = own;
  }
  const [prefix, local] = names.split(name);
  if (FORBIDDEN_NAMES.has(local)) throw new Error(`element name <${name}> is not accepted`);
  // Exactly as many slots as children (a growing array would reserve 17 for the first): most elements hold one text.
  const nodes = new Array<XmlElement | string>((node[name] as Ordered[]).length);
  return [{ local, uri: scope.get(prefix), attrs, nodes }, scope];
}

const nameOf = (node: Ordered): string | undefined => {
  for (const k in node) if (k !== ':@') return k;
  return undefined;
};

/** The tree of fast-xml-parser's ordered output, built with a stack of elements whose children are still to come. */
export function toTree(rootName: string, rootNode: Ordered): XmlElement {
  const names = new Names();
  const [root, rootScope] = element(rootName, rootNode, ROOT_SCOPE, names);
  const pending: [XmlElement & { nodes: (XmlElement | string)[] }, Ordered, string, Scope][] = [
    [root, rootNode, rootName, rootScope],
  ];
  for (let job = pending.pop(); job !== undefined; job = pending.pop()) {
    const [el, node, name, scope] = job;
    const children = node[name] as Ordered[];
    let n = 0;
    for (const child of children) {
      if ('#text' in child) el.nodes[n++] = decode(child['#text'] as string);
      else if ('#cdata' in child) {
        el.nodes[n++] = (child['#cdata'] as Ordered[]).map((c) => String(c['#text'] ?? '')).join('');
      } else {
        const childName = nameOf(child);
        if (childName === undefined) continue;
        const [c, childScope] = element(childName, child, scope, names);
        el.nodes[n++] = c;
        pending.push([c, child, childName, childScope]);
      }
    }
    if (n < children.length) el.nodes.length = n;
  }
  return root;
}

/** Parses a whole answer (already through the gate) into its root element. Throws an Error saying what is wrong. */
export function parseXml(text: string, maxDepth: number): XmlElement {
  refuseDeclarations(text);
  let parser = parsers.get(maxDepth);
  if (parser === undefined) {
    parser = new XMLParser(parserOptions(maxDepth));
    parsers.set(maxDepth, parser);
  }
  // No validator pass: the gate checked that the document is well-formed while it was read.
  const top = parser.parse(text) as Ordered[];
  const roots = top.filter((n) => !('#text' in n) || String(n['#text']).trim() !== '');
  if (roots.length !== 1) throw new Error(roots.length ? 'more than one root element' : 'no root element');
  const root = roots[0] as Ordered;
  const name = nameOf(root);
  if (name === undefined || name === '#text' || name === '#cdata')
    throw new Error('text outside the root element');
  return toTree(name, root);
}

export const elements = (el: XmlElement): XmlElement[] =>
  el.nodes.filter((n): n is XmlElement => typeof n !== 'string');

export const textOf = (el: XmlElement): string => {
  let text = '';
  for (const n of el.nodes) if (typeof n === 'string') text += n;
  return text;
};
