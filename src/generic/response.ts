/**
 * The generic response decoder: an answer to any operation as a plain object (asmx-wire.md §3.2, §4, §5.4,
 * §5.5, §6, §7.3). Namespace prefixes are removed, `<Op>Result` is unwrapped, RPC multi-references are
 * resolved, attributes are dropped (`xsi:nil` reads as null), text stays text unless `typed`. A SOAP fault
 * becomes the same GatewayError('FAULT') as on the typed path, with the fault's detail as `detail`.
 */
import type { ServiceName } from '../catalogue/types';
import { GatewayError } from '../errors';
import type { ResponseDecoder } from '../soap/decode';
import { faultError } from '../soap/fault';
import { NS } from '../soap/ns';
import type { Transport } from '../soap/request';
import { attrKey, elements, parseXml, textOf, type XmlElement } from './xml';

export interface GenericDecodeOptions {
  transport: Transport;
  operation: string;
  service?: ServiceName | undefined;
  /** Numbers and booleans as such (text that reads as one), else every value is text. */
  typed?: boolean | undefined;
  /**
   * Names of list elements (ASMX writes a list as a wrapper with one child per item): such an element reads
   * as an array of its children's values, `[]` when empty, whatever the children are called.
   */
  lists?: readonly string[] | undefined;
}

const NIL = [attrKey(NS.xsi, 'nil'), attrKey(NS.xsi, 'null')];
const ID = [attrKey(undefined, 'id'), attrKey(NS.enc11, 'id'), attrKey(NS.enc12, 'id')];
const REF = [attrKey(NS.enc12, 'ref'), attrKey(NS.enc11, 'ref')];
const HREF = attrKey(undefined, 'href');

/** Whole numbers without sign tricks or leading zeros (so `+49…` and `0170…` stay text), and decimals. */
const NUMBER_RE = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

export function typedValue(text: string): unknown {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (!NUMBER_RE.test(text)) return text;
  const n = Number(text);
  // A whole number past 2^53 would lose digits: it stays text.
  if (!Number.isFinite(n) || (/^-?\d+$/.test(text) && !Number.isSafeInteger(n))) return text;
  return n;
}

const firstAttr = (el: XmlElement, keys: readonly string[]): string | undefined => {
  for (const k of keys) {
    const v = el.attrs.get(k);
    if (v !== undefined) return v;
  }
  return undefined;
};

const isNil = (el: XmlElement): boolean => {
  const v = firstAttr(el, NIL)?.trim();
  return v === 'true' || v === '1';
};

const isWhitespace = (s: string): boolean => s.trim() === '';

/** Turns elements into plain values; follows multi-references within a budget (shared refs can multiply). */
class Converter {
  private readonly ids = new Map<string, XmlElement>();
  private readonly resolving = new Set<string>();
  private budget: number;
  private readonly lists: ReadonlySet<string>;

  constructor(
    scope: XmlElement,
    private readonly typed: boolean,
    lists: readonly string[] | undefined,
  ) {
    this.lists = new Set(lists ?? []);
    let count = 0;
    const stack = [scope];
    for (let el = stack.pop(); el; el = stack.pop()) {
      count++;
      const id = firstAttr(el, ID);
      if (id !== undefined && !this.ids.has(id)) this.ids.set(id, el);
      stack.push(...elements(el));
    }
    // Each referenced value is normally read once: twice the document plus some slack is generous.
    this.budget = 2 * count + 10_000;
  }

  value(el: XmlElement): unknown {
    if (--this.budget < 0) throw new Error('references expand the answer too far');
    const ref = el.attrs.get(HREF) ?? firstAttr(el, REF);
    if (ref !== undefined) return this.follow(ref.trim().replace(/^#/, ''));
    if (isNil(el)) return null;
    const children = elements(el);
    if (this.lists.has(el.local)) return children.map((c) => this.value(c));
    const text = textOf(el);
    if (children.length === 0) return this.typed ? typedValue(text) : text;
    const out: Record<string, unknown> = {};
    const repeated = new Set<string>();
    for (const child of children) {
      const key = child.local;
      const v = this.value(child);
      if (repeated.has(key)) (out[key] as unknown[]).push(v);
      else if (Object.prototype.hasOwnProperty.call(out, key)) {
        out[key] = [out[key], v];
        repeated.add(key);
      } else out[key] = v;
    }
    // Mixed content keeps its text; indentation between elements is not content.
    if (!isWhitespace(text)) out['#text'] = text;
    return out;
  }

  private follow(id: string): unknown {
    const target = this.ids.get(id);
    if (!target) throw new Error(`unresolved reference #${id}`);
    if (this.resolving.has(id)) throw new Error(`reference #${id} refers to itself`);
    this.resolving.add(id);
    try {
      return this.value(target);
    } finally {
      this.resolving.delete(id);
    }
  }
}

function parseFault(fault: XmlElement, converter: Converter, opts: GenericDecodeOptions): GatewayError {
  let code: string | undefined;
  let reason: string | undefined;
  let detail: unknown;
  for (const child of elements(fault)) {
    switch (child.local) {
      case 'faultcode': // 1.1
        code ??= textOf(child).trim();
        break;
      case 'faultstring':
        reason ??= textOf(child).trim();
        break;
      case 'Code': // 1.2: Code/Value (a Subcode is inside, not first)
        code ??= textOf(elements(child).find((e) => e.local === 'Value') ?? child).trim();
        break;
      case 'Reason':
        reason ??= textOf(elements(child).find((e) => e.local === 'Text') ?? child).trim();
        break;
      case 'detail':
      case 'Detail':
        if (elements(child).length || !isWhitespace(textOf(child))) detail = converter.value(child);
        break;
    }
  }
  return faultError(reason, code, { service: opts.service, operation: opts.operation, detail });
}

/** The answer inside a SOAP envelope: the fault, or the response wrapper with `<Op>Result` unwrapped. */
function soapAnswer(root: XmlElement, opts: GenericDecodeOptions): unknown {
  if (root.local !== 'Envelope' || (root.uri !== NS.soap11 && root.uri !== NS.soap12)) {
    throw new Error(`expected a SOAP Envelope, found <${root.local}>`);
  }
  const body = elements(root).find((e) => e.local === 'Body' && e.uri === root.uri);
  if (!body) throw new Error('the Envelope has no Body');
  const converter = new Converter(body, opts.typed === true, opts.lists);
  const first = elements(body)[0];
  if (!first) return null; // a one-way or void answer with an empty Body
  if (first.local === 'Fault' && first.uri === root.uri) throw parseFault(first, converter, opts);
  let resultName = `${opts.operation}Result`;
  const parts: XmlElement[] = [];
  for (const child of elements(first)) {
    // SOAP 1.2 RPC names its return accessor (§5.2): a QName whose local part is the accessor's name.
    if (child.local === 'result' && child.uri === NS.rpc12) {
      const q = textOf(child).trim();
      resultName = q.slice(q.indexOf(':') + 1) || resultName;
    } else parts.push(child);
  }
  if (parts.length === 0) return null; // void, or a null result (ASMX omits it)
  if (parts.length === 1 && parts[0]!.local === resultName) return converter.value(parts[0]!);
  // Out parameters beside the result, or a shape we did not expect: the whole wrapper, as read.
  const out: Record<string, unknown> = {};
  for (const part of parts) {
    const v = converter.value(part);
    const prev = out[part.local];
    out[part.local] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

class GenericDecoder implements ResponseDecoder {
  private readonly chunks: Uint8Array[] = [];

  constructor(private readonly opts: GenericDecodeOptions) {}

  write(chunk: Uint8Array): void {
    // The transport stops reading past maxResponseBytes: no second limit here.
    this.chunks.push(chunk);
  }

  end(): unknown {
    let text = Buffer.concat(this.chunks).toString('utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    const soap = this.opts.transport === 'soap11' || this.opts.transport === 'soap12';
    try {
      // ASMX answers a void method over GET/POST with an empty 200.
      if (!soap && isWhitespace(text)) return null;
      const root = parseXml(text);
      if (soap) return soapAnswer(root, this.opts);
      return new Converter(root, this.opts.typed === true, this.opts.lists).value(root);
    } catch (e) {
      if (e instanceof GatewayError) throw e;
      throw new GatewayError(
        'PARSE',
        `cannot decode the response: ${e instanceof Error ? e.message : String(e)}`,
        {
          service: this.opts.service,
          operation: this.opts.operation,
          cause: e,
        },
      );
    }
  }
}

/** A decoder for one answer to any operation; the body is read whole (fast-xml-parser does not stream). */
export function createGenericDecoder(opts: GenericDecodeOptions): ResponseDecoder {
  return new GenericDecoder(opts);
}
