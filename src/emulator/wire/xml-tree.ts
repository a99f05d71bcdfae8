import { SaxesParser } from 'saxes';

/** A parsed element: namespace-resolved, with the position .NET would report in "error in XML document (L, C)". */
export interface XmlElement {
  readonly local: string;
  readonly ns: string;
  /** Attributes keyed by `{uri}local` (un-namespaced: just `local`). */
  readonly attrs: ReadonlyMap<string, string>;
  readonly children: XmlElement[];
  text: string;
  readonly line: number;
  readonly column: number;
  readonly parent: XmlElement | undefined;
  /** Namespace declarations made on this element (prefix → uri; '' = default). */
  readonly decls: Readonly<Record<string, string>>;
}

export interface XmlLimits {
  maxDepth: number;
  maxAttributeLength: number;
  maxElements: number;
}

export const DEFAULT_XML_LIMITS: XmlLimits = {
  maxDepth: 64,
  maxAttributeLength: 16 * 1024,
  maxElements: 100_000,
};

/** Not well-formed, a DTD, or over a limit: ASMX answers all of these with 400 and an empty body. */
export class XmlRejected extends Error {
  override name = 'XmlRejected';
}

export const attrKey = (uri: string, local: string): string => (uri ? `{${uri}}${local}` : local);

export function attr(el: XmlElement, uri: string, local: string): string | undefined {
  return el.attrs.get(attrKey(uri, local));
}

/** Resolves a QName value (`xsd:string`) against the namespace declarations in scope of `el`. */
export function resolveQName(el: XmlElement, qname: string): { ns: string; local: string } {
  const i = qname.indexOf(':');
  const prefix = i < 0 ? '' : qname.slice(0, i).trim();
  const local = (i < 0 ? qname : qname.slice(i + 1)).trim();
  if (prefix === 'xml') return { ns: 'http://www.w3.org/XML/1998/namespace', local };
  for (let e: XmlElement | undefined = el; e; e = e.parent) {
    const uri = e.decls[prefix];
    if (uri !== undefined) return { ns: uri, local };
  }
  return { ns: '', local };
}

/**
 * Parses a whole document into a small tree. DOCTYPE declarations are refused outright (no DTD, no entity
 * expansion: the "billion laughs" family cannot even start), and depth, attribute size and element count are bounded.
 */
export function parseXml(text: string, limits: XmlLimits = DEFAULT_XML_LIMITS): XmlElement {
  const parser = new SaxesParser({ xmlns: true, position: true });
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let count = 0;
  let startLine = 1;
  let startColumn = 1;
  let failure: Error | undefined;
  const fail = (message: string): never => {
    throw new XmlRejected(message);
  };
  parser.on('error', (err) => {
    failure ??= err;
    throw new XmlRejected(err.message);
  });
  parser.on('doctype', () => fail('DTD is prohibited'));
  parser.on('opentagstart', (tag) => {
    startLine = parser.line;
    startColumn = Math.max(1, parser.column - tag.name.length);
    if (stack.length >= limits.maxDepth) fail('maximum depth exceeded');
    if (++count > limits.maxElements) fail('too many elements');
  });
  parser.on('opentag', (tag) => {
    const attrs = new Map<string, string>();
    for (const a of Object.values(tag.attributes)) {
      if (a.value.length > limits.maxAttributeLength) fail('attribute too long');
      if (a.prefix === 'xmlns' || a.name === 'xmlns') continue;
      attrs.set(attrKey(a.uri, a.local), a.value);
    }
    const parent = stack[stack.length - 1];
    const el: XmlElement = {
      local: tag.local,
      ns: tag.uri,
      attrs,
      children: [],
      text: '',
      line: startLine,
      column: startColumn,
      parent,
      decls: { ...tag.ns },
    };
    if (parent) parent.children.push(el);
    else root = el;
    stack.push(el);
  });
  const onText = (t: string): void => {
    const top = stack[stack.length - 1];
    if (top) top.text += t;
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('closetag', () => {
    stack.pop();
  });
  try {
    parser.write(text).close();
  } catch (err) {
    if (err instanceof XmlRejected) throw err;
    throw new XmlRejected(err instanceof Error ? err.message : String(err));
  }
  if (failure || !root) throw new XmlRejected(failure?.message ?? 'no root element');
  return root;
}
