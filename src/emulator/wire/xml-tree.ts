import { XmlScanner, decodeText } from '../../soap/xml-scanner';

/** A parsed element: namespace-resolved, with the position .NET would report in "error in XML document (L, C)". */
export interface XmlElement {
  readonly local: string;
  readonly ns: string;
  /** Attributes keyed by `{uri}local` (un-namespaced: just `local`). */
  readonly attrs: ReadonlyMap<string, string>;
  readonly children: XmlElement[];
  text: string;
  /**
   * Where an XmlTextReader stands once it has read this element as XmlSerializer reads a value
   * (ReadElementString: past the end tag, on the next node): the line and column "There is an error in XML
   * document (L, C)" names when the value cannot be converted. Set when the element closes.
   */
  readerLine: number;
  readerColumn: number;
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
  /**
   * The root element, when its start tag was read before the document failed: a streaming reader has
   * already seen it (ASMX picks the SOAP version, and checks the envelope namespace, from it).
   */
  root: { readonly local: string; readonly ns: string } | undefined;
}

/**
 * The offset of the node XmlTextReader reports after `end`: text starts where it is; for markup the reader
 * names the position after `<`, `</`, `<?`, `<!--` or `<![CDATA[`.
 */
function nodeAt(text: string, end: number): number {
  if (text.charCodeAt(end) !== 60) return end;
  const c = text.charCodeAt(end + 1);
  if (c === 47 || c === 63) return end + 2;
  if (c === 33) return text.startsWith('<![CDATA[', end) ? end + 9 : end + 4;
  return end + 1;
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

const XML_NS = 'http://www.w3.org/XML/1998/namespace';
const NO_DECLS: Readonly<Record<string, string>> = Object.freeze({});
const NO_ATTRS: ReadonlyMap<string, string> = new Map();

/** The namespace a prefix is bound to where `el` (the new element, not yet linked) sits. */
function lookup(
  decls: Readonly<Record<string, string>>,
  parent: XmlElement | undefined,
  prefix: string,
): string | undefined {
  if (prefix === 'xml') return XML_NS;
  const own = decls[prefix];
  if (own !== undefined) return own;
  for (let e = parent; e; e = e.parent) {
    const uri = e.decls[prefix];
    if (uri !== undefined) return uri;
  }
  return prefix === '' ? '' : undefined;
}

/**
 * Parses a whole document into a small tree. DOCTYPE declarations are refused outright (no DTD, no entity
 * expansion: the "billion laughs" family cannot even start), and depth, attribute size and element count are bounded.
 */
export function parseXml(text: string, limits: XmlLimits = DEFAULT_XML_LIMITS): XmlElement {
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let count = 0;
  // Lines counted forward as the scan goes: each element's reader position is noted when it closes.
  let line = 1;
  let lineStart = 0;
  let counted = 0;
  /** Moves `line` and `lineStart` up to `offset`; returns the 1-based column of `offset`. */
  const columnAt = (offset: number): number => {
    if (offset > counted) {
      for (let nl = text.indexOf('\n', counted); nl >= 0 && nl < offset; nl = text.indexOf('\n', nl + 1)) {
        line++;
        lineStart = nl + 1;
      }
      counted = offset;
    }
    return offset - lineStart + 1;
  };
  const fail = (message: string): never => {
    throw new XmlRejected(message);
  };
  const scanner = new XmlScanner({
    open(name, list) {
      if (stack.length >= limits.maxDepth) fail('maximum depth exceeded');
      if (++count > limits.maxElements) fail('too many elements');
      const parent = stack[stack.length - 1];
      let decls: Record<string, string> | undefined;
      if (list !== null) {
        for (let i = 0; i < list.length; i += 2) {
          const k = list[i] as string;
          const v = list[i + 1] as string;
          if (v.length > limits.maxAttributeLength) fail('attribute too long');
          if (k === 'xmlns') (decls ??= {})[''] = v;
          else if (k.startsWith('xmlns:')) {
            if (v === '') fail(`empty namespace for prefix ${k.slice(6)}`);
            (decls ??= {})[k.slice(6)] = v;
          }
        }
      }
      const own = decls ?? NO_DECLS;
      // Most elements have no attributes: they share one empty map (a map per element was ~2.4 KB a request).
      let attrs: Map<string, string> | null = null;
      if (list !== null) {
        for (let i = 0; i < list.length; i += 2) {
          const k = list[i] as string;
          if (k === 'xmlns' || k.startsWith('xmlns:')) continue;
          const c = k.indexOf(':');
          attrs ??= new Map<string, string>();
          if (c < 0) {
            attrs.set(k, list[i + 1] as string);
            continue;
          }
          const uri = lookup(own, parent, k.slice(0, c));
          if (uri === undefined) fail(`unbound namespace prefix in attribute ${k}`);
          const key = attrKey(uri as string, k.slice(c + 1));
          if (attrs.has(key)) fail(`attribute ${k} repeated`);
          attrs.set(key, list[i + 1] as string);
        }
      }
      const c = name.indexOf(':');
      const ns = lookup(own, parent, c < 0 ? '' : name.slice(0, c));
      if (ns === undefined) fail(`unbound namespace prefix in <${name}>`);
      const el: XmlElement = {
        local: c < 0 ? name : name.slice(c + 1),
        ns: ns as string,
        attrs: attrs ?? NO_ATTRS,
        children: [],
        text: '',
        readerLine: 0,
        readerColumn: 0,
        parent,
        decls: own,
      };
      if (parent) parent.children.push(el);
      else root = el;
      stack.push(el);
    },
    close(end) {
      const el = stack.pop();
      if (el) {
        el.readerColumn = columnAt(nodeAt(text, end));
        el.readerLine = line;
      }
    },
    text(s, start, end) {
      const top = stack[stack.length - 1];
      if (top) top.text += decodeText(s, start, end);
    },
    cdata(t) {
      const top = stack[stack.length - 1];
      if (top) top.text += t;
    },
  });
  try {
    scanner.parse(text);
  } catch (err) {
    const rejected =
      err instanceof XmlRejected ? err : new XmlRejected(err instanceof Error ? err.message : String(err));
    const top = root as XmlElement | undefined;
    rejected.root ??= top && { local: top.local, ns: top.ns };
    throw rejected;
  }
  if (!root) throw new XmlRejected('no root element');
  return root;
}
