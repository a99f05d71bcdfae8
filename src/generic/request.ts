/**
 * The generic request builder: any operation, any plain-object parameters, no catalogue. The XML is built with
 * xmlbuilder2 (names checked, text and attributes escaped by the library); values are written with the same
 * codecs as the typed path (src/soap/values.ts). Shapes per asmx-wire.md §3.1 (document/literal), §5.3/§5.5
 * (RPC/encoded), §7.2 (GET/POST), §10.2.
 */
import { create } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces';
import { soapAction } from '../catalogue';
import { NS } from '../soap/ns';
import type { Transport, WireRequest } from '../soap/request';
import { isBytes, isDate, isPlainObject, timeOf } from '../shape';
import { formatBase64, formatDateTime, formatDouble, formatDoubleParam } from '../soap/values';
import { kindOf } from '../value-kind';

export interface GenericRequest {
  transport: Transport;
  /** Service path below the origin, e.g. `/gateway/Send.asmx` (GET/POST append `/<operation>`). */
  path: string;
  /** Namespace of the operation element (and of header blocks named without one). */
  namespace: string;
  operation: string;
  params: Readonly<Record<string, unknown>>;
  /** `document` (literal, default) or `rpc` (SOAP section-5 encoding). SOAP only. */
  style?: 'document' | 'rpc';
  /** SOAP header blocks: `{ AuthHeader: { Token: 't' } }`; a name `{uri}Local` picks another namespace. */
  headers?: Readonly<Record<string, unknown>> | undefined;
  /** Replaces ASMX's default SOAPAction (namespace + operation). */
  soapAction?: string | undefined;
}

/** Bad input found while building: the caller turns it into VALIDATION (nothing was sent). */
export class GenericRequestError extends Error {}

const XMLNS = 'http://www.w3.org/2000/xmlns/';
/** XML 1.0 names without a colon (element and parameter names; prefixes are ours to choose). */
const NCNAME = /^[A-Za-z_\u00C0-\uFFFF][\w.\-\u00B7\u00C0-\uFFFF]*$/;
const CLARK = /^\{([^}]*)\}(.+)$/;
/** Deeper parameter objects than this are refused (a real request is a few levels deep). */
const MAX_DEPTH = 32;

function fail(message: string): never {
  throw new GenericRequestError(message);
}

export function checkName(name: string, what: string): string {
  if (!NCNAME.test(name)) fail(`${what} "${name}" is not an XML name`);
  return name;
}

/**
 * The text of one scalar, or undefined when `v` is not a scalar. `form`: GET/POST spelling of infinities
 * (ASMX reads those with Convert.ChangeType, which wants `Infinity`).
 */
function scalarText(v: unknown, form: boolean, where: string): string | undefined {
  switch (typeof v) {
    case 'string':
      return v;
    case 'boolean':
      return v ? 'true' : 'false';
    case 'bigint':
      return String(v);
    case 'number':
      return form ? formatDoubleParam(v) : formatDouble(v);
  }
  if (isDate(v)) {
    if (Number.isNaN(timeOf(v))) fail(`${where}: an invalid Date`);
    return formatDateTime(v);
  }
  return undefined;
}

/** The xsd type an RPC accessor declares for a JS value; strings declare none (the server reads its own type). */
function xsiTypeOf(v: unknown): string | undefined {
  if (typeof v === 'boolean') return 'xsd:boolean';
  if (typeof v === 'bigint') return 'xsd:long';
  if (typeof v === 'number')
    return Number.isInteger(v) && Math.abs(v) <= 2147483647 ? 'xsd:int' : 'xsd:double';
  if (isDate(v)) return 'xsd:dateTime';
  if (isBytes(v)) return 'xsd:base64Binary';
  return undefined;
}

class Writer {
  /** Objects on the way down: a cycle would never end. */
  private readonly path = new Set<object>();

  constructor(
    private readonly rpc: boolean,
    private readonly v12: boolean,
  ) {}

  /**
   * `parent` gets one element per value under `name`: a list repeats it (document/literal) or becomes one
   * SOAP-encoded array (RPC). `ns` null: unqualified.
   */
  element(parent: XMLBuilder, ns: string | null, name: string, v: unknown, depth: number): void {
    if (v === undefined) return;
    if (Array.isArray(v)) {
      if (this.rpc) return this.rpcArray(parent, name, v, depth);
      for (const item of v) {
        if (Array.isArray(item)) fail(`${name}: a list inside a list has no element name`);
        this.element(parent, ns, name, item, depth);
      }
      return;
    }
    const el = ns === null ? parent.ele(name) : parent.ele(ns, name);
    this.value(el, ns, name, v, depth, this.rpc);
  }

  /** `declare`: RPC accessors state their xsd type; array items do not (the array says it, §5.2). */
  private value(
    el: XMLBuilder,
    ns: string | null,
    name: string,
    v: unknown,
    depth: number,
    declare: boolean,
  ): void {
    if (v === null) {
      el.att(NS.xsi, 'xsi:nil', 'true');
      return;
    }
    const text = isBytes(v) ? formatBase64(v) : scalarText(v, false, name);
    if (text !== undefined) {
      const type = declare ? xsiTypeOf(v) : undefined;
      if (type) el.att(NS.xsi, 'xsi:type', type);
      if (text) el.txt(text);
      return;
    }
    if (!isPlainObject(v)) fail(`${name}: ${kindOf(v)} cannot be written as XML`);
    if (depth >= MAX_DEPTH) fail(`${name}: parameters nested deeper than ${MAX_DEPTH} levels`);
    if (this.path.has(v)) fail(`${name}: the parameters refer to themselves`);
    this.path.add(v);
    for (const [k, child] of Object.entries(v)) {
      this.element(el, ns, checkName(k, 'element name'), child, depth + 1);
    }
    this.path.delete(v);
  }

  /** A SOAP-encoded array (§5.2): arrayType (1.1) or itemType + arraySize (1.2), items named `Item`. */
  private rpcArray(parent: XMLBuilder, name: string, items: unknown[], depth: number): void {
    const types = new Set(items.map((i) => xsiTypeOf(i) ?? 'xsd:string'));
    const itemType = types.size === 1 ? [...types][0]! : 'xsd:anyType';
    const el = parent.ele(name);
    if (this.v12) {
      el.att(NS.enc12, 'enc:itemType', itemType).att(NS.enc12, 'enc:arraySize', String(items.length));
    } else {
      el.att(NS.xsi, 'xsi:type', 'soapenc:Array').att(
        NS.enc11,
        'soapenc:arrayType',
        `${itemType}[${items.length}]`,
      );
    }
    for (const item of items) {
      if (item === undefined) continue;
      if (Array.isArray(item)) fail(`${name}: a list inside a list has no element name`);
      this.value(el.ele('Item'), null, 'Item', item, depth + 1, false);
    }
  }
}

function soapEnvelope(req: GenericRequest): string {
  const v12 = req.transport === 'soap12';
  const rpc = req.style === 'rpc';
  const env = v12 ? NS.soap12 : NS.soap11;
  // Characters XML 1.0 cannot carry are dropped, as the typed path's escaping does.
  const doc = create({ version: '1.0', encoding: 'utf-8', invalidCharReplacement: '' });
  const envelope = doc
    .ele(env, 'soap:Envelope')
    .att(XMLNS, 'xmlns:xsi', NS.xsi)
    .att(XMLNS, 'xmlns:xsd', NS.xsd);
  if (rpc) {
    envelope
      .att(XMLNS, v12 ? 'xmlns:enc' : 'xmlns:soapenc', v12 ? NS.enc12 : NS.enc11)
      .att(XMLNS, 'xmlns:tns', req.namespace);
  }
  const headers = Object.entries(req.headers ?? {});
  if (headers.length) {
    const header = envelope.ele(env, 'soap:Header');
    const writer = new Writer(false, v12);
    for (const [key, value] of headers) {
      const clark = CLARK.exec(key);
      const ns = clark ? (clark[1] as string) : req.namespace;
      writer.element(header, ns, checkName(clark ? (clark[2] as string) : key, 'header name'), value, 1);
    }
  }
  const body = envelope.ele(env, 'soap:Body');
  if (rpc && !v12) body.att(env, 'soap:encodingStyle', NS.enc11);
  // Document/literal: every parameter qualified in the operation's namespace; RPC: wrapper only (§5.2).
  const wrapper = body.ele(req.namespace, rpc ? `tns:${req.operation}` : req.operation);
  const writer = new Writer(rpc, v12);
  for (const [key, value] of Object.entries(req.params)) {
    writer.element(wrapper, rpc ? null : req.namespace, checkName(key, 'parameter name'), value, 1);
  }
  // xmlbuilder2 writes a carriage return in text or attributes as is, and every XML reader turns it into a
  // line feed; as a character reference it survives (the typed path writes it so too). Without pretty
  // printing, values are the only place a CR can come from.
  return doc.end({ prettyPrint: false }).replace(/\r/g, '&#xD;');
}

/** GET/POST: one key per scalar, a repeated key per list item, one key per byte of a Buffer (§7.2). */
function formFields(params: Readonly<Record<string, unknown>>): string {
  const out = new URLSearchParams();
  for (const [key, v] of Object.entries(params)) {
    const items = Array.isArray(v) ? v : [v];
    for (const item of items) {
      if (item === undefined) continue;
      if (item === null) {
        out.append(key, '');
      } else if (isBytes(item)) {
        for (const b of item) out.append(key, String(b));
      } else {
        const text = scalarText(item, true, key);
        if (text === undefined) fail(`${key}: HTTP GET and POST carry only values and lists of values`);
        out.append(key, text as string);
      }
    }
  }
  // ASMX decodes `+` as a space too; %20 is what the typed path sends.
  return out.toString().replace(/\+/g, '%20');
}

/**
 * Builds the HTTP request of any operation for one of the four transports. Throws GenericRequestError for
 * input that cannot be written (a name that is no XML name, a function, a cycle, an object over GET/POST).
 */
export function buildGenericRequest(req: GenericRequest): WireRequest {
  checkName(req.operation, 'operation name');
  switch (req.transport) {
    case 'soap11':
    case 'soap12': {
      const action = req.soapAction ?? soapAction(req.namespace, req.operation);
      const headers: Record<string, string> =
        req.transport === 'soap12'
          ? { 'content-type': `application/soap+xml; charset=utf-8; action="${action}"` }
          : { 'content-type': 'text/xml; charset=utf-8', soapaction: `"${action}"` };
      return { method: 'POST', path: req.path, headers, body: soapEnvelope(req) };
    }
    case 'post':
    case 'get': {
      if (req.headers && Object.keys(req.headers).length) {
        fail('SOAP headers need a SOAP transport (soap11 or soap12)');
      }
      const fields = formFields(req.params);
      const path = `${req.path}/${encodeURIComponent(req.operation)}`;
      return req.transport === 'post'
        ? {
            method: 'POST',
            path,
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: fields,
          }
        : { method: 'GET', path: fields ? `${path}?${fields}` : path, headers: {} };
    }
    default:
      return fail(`unknown transport ${String(req.transport)}`);
  }
}
