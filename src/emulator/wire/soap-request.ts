import { soapAction } from '../../catalogue';
import type { OperationDef } from '../../catalogue/types';
import type { ParamValues } from '../contract';
import { WireFault, clientFault, unableToRead } from './faults';
import { NS, type SoapVersion } from './ns';
import { childNamed, readEncodedParams, readLiteralParams } from './soap-params';
import { XmlRejected, attr, parseXml, type XmlElement, type XmlLimits } from './xml-tree';

/** One service as the SOAP endpoint sees it: its namespace and operations. */
export interface ServiceBinding {
  readonly ns: string;
  readonly ops: readonly OperationDef[];
}

export type SoapOutcome =
  | { kind: 'status'; status: 400 | 415 }
  | { kind: 'fault'; version: SoapVersion; fault: WireFault; op?: OperationDef }
  | { kind: 'call'; version: SoapVersion; op: OperationDef; params: ParamValues };

export interface MediaType {
  type: string;
  params: Record<string, string>;
}

export function parseMediaType(header: string | undefined): MediaType {
  const [type = '', ...rest] = (header ?? '').split(';');
  const params: Record<string, string> = {};
  for (const part of rest) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim().toLowerCase();
    params[key] = part
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/s, '$1')
      .trim();
  }
  return { type: type.trim().toLowerCase(), params };
}

/** Clients send the same few Content-Type values over and over: parsed once each (the results are frozen). */
const mediaCache = new Map<string, MediaType>();

export function mediaTypeOf(header: string | undefined): MediaType {
  if (header === undefined) return parseMediaType(header);
  let media = mediaCache.get(header);
  if (!media) {
    if (mediaCache.size >= 64) mediaCache.clear();
    media = parseMediaType(header);
    Object.freeze(media.params);
    mediaCache.set(header, Object.freeze(media));
  }
  return media;
}

/** One decoder per charset label (decode() without `stream` keeps no state between calls); null: unknown label. */
const decoders = new Map<string, TextDecoder | null>();

function decoderFor(charset: string): TextDecoder | null {
  let decoder = decoders.get(charset);
  if (decoder === undefined) {
    try {
      decoder = new TextDecoder(charset);
    } catch {
      decoder = null;
    }
    if (decoders.size >= 64) decoders.clear();
    decoders.set(charset, decoder);
  }
  return decoder;
}

const safeDecodeUri = (s: string): string => {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

/** Text of the body: `text/xml` without charset is read as ASCII by ASMX (non-ASCII → `?`) unless a BOM says otherwise. */
export function decodeBody(body: Buffer, media: MediaType): string {
  if (body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf)
    return body.subarray(3).toString('utf8');
  const charset = media.params['charset']?.toLowerCase();
  if (!charset) {
    if (media.type === 'text/xml') return body.toString('latin1').replace(/[\u0080-\uffff]/g, '?');
    return body.toString('utf8');
  }
  // Buffer's UTF-8 decoding equals TextDecoder's once a BOM is ruled out (above), and costs less.
  if (charset === 'utf-8' || charset === 'utf8') return body.toString('utf8');
  const decoder = decoderFor(charset);
  if (!decoder) return body.toString('utf8');
  try {
    return decoder.decode(body);
  } catch {
    return body.toString('utf8');
  }
}

interface OperationIndex {
  readonly byAction: ReadonlyMap<string, OperationDef>;
  readonly byName: ReadonlyMap<string, OperationDef>;
}

/** SOAPAction and wrapper-element lookups of a binding, built on first use (the first operation wins, as find did). */
const indexes = new WeakMap<ServiceBinding, OperationIndex>();

function indexOf(binding: ServiceBinding): OperationIndex {
  let index = indexes.get(binding);
  if (!index) {
    const byAction = new Map<string, OperationDef>();
    const byName = new Map<string, OperationDef>();
    for (const op of binding.ops) {
      const action = soapAction(binding.ns, op.name);
      if (!byAction.has(action)) byAction.set(action, op);
      if (!byName.has(op.name)) byName.set(op.name, op);
    }
    index = { byAction, byName };
    indexes.set(binding, index);
  }
  return index;
}

const firstElement = (el: XmlElement | undefined): XmlElement | undefined => el?.children[0];

function envelopeFault(version: SoapVersion, fault: WireFault): SoapOutcome {
  return { kind: 'fault', version, fault };
}

/**
 * Turns one SOAP POST into an operation call or the answer ASMX would give instead (§2, §6).
 * `headers` are the raw request headers (lower-case names).
 */
export function readSoapRequest(
  binding: ServiceBinding,
  headers: Record<string, string | string[] | undefined>,
  body: Buffer,
  limits: XmlLimits,
): SoapOutcome {
  const contentType = headers['content-type'];
  const media = mediaTypeOf(typeof contentType === 'string' ? contentType : undefined);
  if (media.type !== 'text/xml' && media.type !== 'application/soap+xml')
    return { kind: 'status', status: 415 };
  const rawAction = headers['soapaction'];
  const actionHeader = Array.isArray(rawAction) ? rawAction.join(',') : rawAction;
  const guess: SoapVersion =
    actionHeader === undefined || media.type === 'application/soap+xml' ? '1.2' : '1.1';

  let root: XmlElement;
  try {
    root = parseXml(decodeBody(body, media), limits);
  } catch (err) {
    if (err instanceof XmlRejected) return { kind: 'status', status: 400 };
    throw err;
  }

  let version: SoapVersion;
  if (root.local === 'Envelope' && (root.ns === NS.soap11 || root.ns === NS.soap12)) {
    version = root.ns === NS.soap11 ? '1.1' : '1.2';
  } else if (root.ns && root.ns !== NS.soap11 && root.ns !== NS.soap12) {
    const expected = guess === '1.1' ? NS.soap11 : NS.soap12;
    return envelopeFault(
      guess,
      new WireFault('VersionMismatch', [
        `Possible SOAP version mismatch: Envelope namespace ${root.ns} was unexpected. Expecting ${expected}.`,
      ]),
    );
  } else {
    return envelopeFault(
      guess,
      unableToRead('Request format is invalid: Missing required soap:Envelope element.'),
    );
  }
  if (version === '1.1' && media.type !== 'text/xml') return { kind: 'status', status: 415 };

  const envNs = root.ns;
  const header = childNamed(root, 'Header', envNs);
  for (const h of header?.children ?? []) {
    const mu = attr(h, envNs, 'mustUnderstand')?.trim();
    if (mu === '1' || mu === 'true') {
      return envelopeFault(
        version,
        new WireFault('MustUnderstand', [`SOAP header ${h.local} was not understood.`], [], false),
      );
    }
  }
  const bodyEl = childNamed(root, 'Body', envNs);
  if (!bodyEl)
    return envelopeFault(
      version,
      unableToRead('Request format is invalid: Missing required soap:Body element.'),
    );
  const wrapper = firstElement(bodyEl);

  const index = indexOf(binding);
  const byElement = (): OperationDef | undefined =>
    wrapper && wrapper.ns === binding.ns ? index.byName.get(wrapper.local) : undefined;
  const byAction = (action: string): OperationDef | undefined => index.byAction.get(action);

  let op: OperationDef | undefined;
  if (version === '1.1') {
    if (actionHeader === undefined) {
      op = byElement();
      if (!op) {
        const el = wrapper ? `<${wrapper.local} xmlns='${wrapper.ns}'>` : '<>';
        return envelopeFault(version, clientFault(`The request element ${el} was not recognized.`));
      }
    } else {
      const trimmed =
        actionHeader.length >= 2 && actionHeader.startsWith('"') && actionHeader.endsWith('"')
          ? actionHeader.slice(1, -1)
          : actionHeader;
      const action = safeDecodeUri(trimmed);
      op = byAction(action);
      if (!op)
        return envelopeFault(
          version,
          clientFault(`Server did not recognize the value of HTTP Header SOAPAction: ${action}.`),
        );
    }
  } else {
    const given = media.params['action'];
    const action = given === undefined ? undefined : safeDecodeUri(given.trim());
    op = (action ? byAction(action) : undefined) ?? byElement();
    if (!op) {
      const msg = action
        ? `Unable to handle request. The action '${action}' was not recognized.`
        : 'Unable to handle request without a valid action parameter. Please supply a valid soap action.';
      return envelopeFault(version, clientFault(msg));
    }
  }

  try {
    const params =
      op.style === 'rpc'
        ? readEncodedParams(op, wrapper, binding.ns, bodyEl)
        : readLiteralParams(op, wrapper, binding.ns);
    return { kind: 'call', version, op, params };
  } catch (err) {
    if (err instanceof WireFault) return { kind: 'fault', version, fault: err, op };
    throw err;
  }
}
