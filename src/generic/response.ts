/**
 * The generic response decoder: an answer to any operation as a plain object (asmx-wire.md §3.2, §4, §5.4,
 * §5.5, §6, §7.3). Namespace prefixes are removed, `<Op>Result` is unwrapped, RPC multi-references are
 * resolved, attributes are dropped (`xsi:nil` reads as null), text stays text unless `typed`. A SOAP fault
 * becomes the same GatewayError('FAULT') as on the typed path, with the fault's detail as `detail`.
 */
import type { ServiceName } from '../catalogue/types';
import { count } from '../count';
import { GatewayError } from '../errors';
import type { ResponseDecoder } from '../soap/decode';
import { faultError } from '../soap/fault';
import { NS } from '../soap/ns';
import type { Transport } from '../soap/request';
import { AnswerGate } from './gate';
import { DEFAULT_INVOKE_LIMITS, LimitExceeded, type InvokeLimits } from './limits';
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

/** A value being built: an element's children still to convert, and what they go into. */
interface Frame {
  readonly children: readonly (XmlElement | string)[];
  next: number;
  /** A list element's items, or null for a record. */
  readonly list: unknown[] | null;
  readonly record: Record<string, unknown> | null;
  /** Keys already holding an array of repeated elements. */
  readonly repeated: Set<string> | null;
  /** Where the finished value goes: the key in the parent record (ignored for a list item or the top). */
  readonly key: string;
  /** Multi-references followed to get here (resolving until this value is done). */
  readonly ids: readonly string[] | null;
  /** The element's text, for mixed content. */
  readonly text: string;
}

/**
 * Turns elements into plain values without recursion (an explicit stack of frames), following multi-references.
 * Every value counts against maxElements and every text against maxDecodedLength, so shared references cannot
 * multiply the answer past the limits either.
 */
class Converter {
  private readonly ids = new Map<string, XmlElement>();
  private readonly resolving = new Set<string>();
  private values = 0;
  private budget: number;
  private decoded = 0;
  private readonly lists: ReadonlySet<string>;

  constructor(
    scope: XmlElement,
    private readonly typed: boolean,
    lists: readonly string[] | undefined,
    private readonly limits: Readonly<InvokeLimits>,
  ) {
    this.lists = new Set(lists ?? []);
    let elementCount = 0;
    const stack = [scope];
    for (let el = stack.pop(); el; el = stack.pop()) {
      elementCount++;
      const id = firstAttr(el, ID);
      if (id !== undefined && !this.ids.has(id)) this.ids.set(id, el);
      for (const n of el.nodes) if (typeof n !== 'string') stack.push(n);
    }
    // Each referenced value is normally read once: twice the document plus some slack is generous.
    this.budget = 2 * elementCount + 10_000;
  }

  /** The plain value of `root`. */
  value(root: XmlElement): unknown {
    const stack: Frame[] = [];
    let result: unknown;
    const deliver = (frame: Frame | undefined, key: string, v: unknown): void => {
      if (frame === undefined) result = v;
      else if (frame.list !== null) frame.list.push(v);
      else {
        const out = frame.record as Record<string, unknown>;
        if (frame.repeated!.has(key)) (out[key] as unknown[]).push(v);
        else if (Object.prototype.hasOwnProperty.call(out, key)) {
          out[key] = [out[key], v];
          frame.repeated!.add(key);
        } else out[key] = v;
      }
    };
    const begin = (start: XmlElement): void => {
      const parent = stack[stack.length - 1];
      const key = start.local;
      let el = start;
      let ids: string[] | null = null;
      // A chain of references: each one followed, each checked for a loop.
      for (let ref = refOf(el); ref !== undefined; ref = refOf(el)) {
        const id = ref.trim().replace(/^#/, '');
        const target = this.ids.get(id);
        if (!target) throw new Error(`unresolved reference #${id}`);
        if (this.resolving.has(id)) throw new Error(`reference #${id} refers to itself`);
        this.resolving.add(id);
        (ids ??= []).push(id);
        this.count();
        el = target;
      }
      this.count();
      const children = el.nodes;
      const hasChildren = children.some((n) => typeof n !== 'string');
      const isList = !isNil(el) && this.lists.has(el.local);
      if (isNil(el) || (!hasChildren && !isList)) {
        const v = isNil(el) ? null : this.leaf(textOf(el));
        if (ids) for (const id of ids) this.resolving.delete(id);
        return deliver(parent, key, v);
      }
      stack.push({
        children,
        next: 0,
        list: isList ? [] : null,
        record: isList ? null : {},
        repeated: isList ? null : new Set(),
        key,
        ids,
        text: isList ? '' : textOf(el),
      });
    };
    begin(root);
    while (stack.length > 0) {
      const frame = stack[stack.length - 1] as Frame;
      let child: XmlElement | undefined;
      while (frame.next < frame.children.length && child === undefined) {
        const n = frame.children[frame.next++];
        if (typeof n !== 'string') child = n;
      }
      if (child !== undefined) {
        begin(child);
        continue;
      }
      stack.pop();
      if (frame.ids) for (const id of frame.ids) this.resolving.delete(id);
      let v: unknown = frame.list;
      if (frame.record !== null) {
        // Mixed content keeps its text; indentation between elements is not content.
        if (!isWhitespace(frame.text)) {
          frame.record['#text'] = frame.text;
          this.addDecoded(frame.text.length);
        }
        v = frame.record;
      }
      deliver(stack[stack.length - 1], frame.key, v);
    }
    return result;
  }

  private leaf(text: string): unknown {
    this.addDecoded(text.length);
    return this.typed ? typedValue(text) : text;
  }

  private count(): void {
    if (++this.values > this.budget) throw new Error('references expand the answer too far');
    if (this.values > this.limits.maxElements) {
      throw new LimitExceeded(
        `the answer holds more than ${count(this.limits.maxElements)} values, references followed`,
        'maxElements',
      );
    }
  }

  private addDecoded(n: number): void {
    this.decoded += n;
    if (this.decoded > this.limits.maxDecodedLength) {
      throw new LimitExceeded(
        `the answer decodes to more than ${count(this.limits.maxDecodedLength)} characters of text, references followed`,
        'maxDecodedLength',
      );
    }
  }
}

/** The plain value of an element (for tests of the conversion on its own). */
export function plainValue(
  el: XmlElement,
  typed: boolean,
  limits: Readonly<InvokeLimits> = DEFAULT_INVOKE_LIMITS,
): unknown {
  return new Converter(el, typed, undefined, limits).value(el);
}

const refOf = (el: XmlElement): string | undefined => el.attrs.get(HREF) ?? firstAttr(el, REF);

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
function soapAnswer(root: XmlElement, opts: GenericDecodeOptions, limits: Readonly<InvokeLimits>): unknown {
  if (root.local !== 'Envelope' || (root.uri !== NS.soap11 && root.uri !== NS.soap12)) {
    throw new Error(`expected a SOAP Envelope, found <${root.local}>`);
  }
  const body = elements(root).find((e) => e.local === 'Body' && e.uri === root.uri);
  if (!body) throw new Error('the Envelope has no Body');
  const converter = new Converter(body, opts.typed === true, opts.lists, limits);
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
  private readonly gate: AnswerGate;

  constructor(
    private readonly opts: GenericDecodeOptions,
    private readonly limits: Readonly<InvokeLimits>,
  ) {
    this.gate = new AnswerGate(limits);
  }

  write(chunk: Uint8Array): void {
    // Checked as it arrives (a limit passed stops the read); kept for the parser at the end. Its size is bounded
    // by the transport's maxResponseBytes.
    this.parsing(() => this.gate.write(chunk));
    this.chunks.push(chunk);
  }

  end(): unknown {
    let text = Buffer.concat(this.chunks).toString('utf8');
    this.chunks.length = 0;
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    const soap = this.opts.transport === 'soap11' || this.opts.transport === 'soap12';
    // ASMX answers a void method over GET/POST with an empty 200.
    if (!soap && isWhitespace(text)) return null;
    return this.parsing(() => {
      this.gate.end();
      const root = parseXml(text, this.limits.maxDepth);
      if (soap) return soapAnswer(root, this.opts, this.limits);
      return new Converter(root, this.opts.typed === true, this.opts.lists, this.limits).value(root);
    });
  }

  private parsing<T>(work: () => T): T {
    try {
      return work();
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

/**
 * A decoder for one answer to any operation: its shape checked against `limits` while it arrives, then read
 * whole (fast-xml-parser does not stream).
 */
export function createGenericDecoder(
  opts: GenericDecodeOptions,
  limits: Readonly<InvokeLimits> = DEFAULT_INVOKE_LIMITS,
): ResponseDecoder {
  return new GenericDecoder(opts, limits);
}
