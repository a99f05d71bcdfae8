import { soapAction, type Catalogue } from '../../catalogue';
import type { OperationDef } from '../../catalogue/types';
import type { ParamValues } from '../contract';
import { WireFault, clientFault, unableToProcess, unableToRead, versionMismatch } from './faults';
import { NS, type SoapVersion } from './ns';
import { childNamed, readEncodedParams, readLiteralParams } from './soap-params';
import { XmlRejected, attr, parseXml, type XmlElement, type XmlLimits } from './xml-tree';

/** One service as the SOAP endpoint sees it: its namespace, operations and the catalogue of their types. */
export interface ServiceBinding {
  readonly ns: string;
  readonly ops: readonly OperationDef[];
  readonly catalogue: Catalogue;
}

export type SoapOutcome =
  /** An empty answer; `version` is the helper's, whose content type ASMX sets before the (empty) fault. */
  | { kind: 'status'; status: 400 | 415; version: SoapVersion }
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

const fault = (version: SoapVersion, f: WireFault, op?: OperationDef): SoapOutcome =>
  op ? { kind: 'fault', version, fault: f, op } : { kind: 'fault', version, fault: f };

/** The SOAP version of an envelope namespace, undefined for any other (VersionMismatch). */
const versionOf = (ns: string): SoapVersion | undefined =>
  ns === NS.soap11 ? '1.1' : ns === NS.soap12 ? '1.2' : undefined;

const MISSING_ENVELOPE = 'Request format is invalid: Missing required soap:Envelope element.';
const MISSING_BODY = 'Request format is invalid: Missing required soap:Body element.';

/**
 * Turns one SOAP POST into an operation call or the answer ASMX would give instead (§2, §6), in the order
 * SoapServerProtocol works: the helper guessed from the headers routes the request; only then are the media
 * type, the envelope's namespace (which picks the version that answers) and the parameters read.
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
  const rawAction = headers['soapaction'];
  const actionHeader = Array.isArray(rawAction) ? rawAction.join(',') : rawAction;
  // GuessVersion: without a SOAPAction header (or as application/soap+xml) the SOAP 1.2 helper routes.
  const guess: SoapVersion =
    actionHeader === undefined || media.type === 'application/soap+xml' ? '1.2' : '1.1';
  const index = indexOf(binding);

  let parsed: XmlElement | XmlRejected | undefined;
  const document = (): XmlElement | XmlRejected => {
    if (parsed === undefined) {
      try {
        parsed = parseXml(decodeBody(body, media), limits);
      } catch (err) {
        if (!(err instanceof XmlRejected)) throw err;
        parsed = err;
      }
    }
    return parsed;
  };

  let op: OperationDef | undefined;
  if (guess === '1.1') {
    const trimmed =
      actionHeader !== undefined &&
      actionHeader.length >= 2 &&
      actionHeader.startsWith('"') &&
      actionHeader.endsWith('"')
        ? actionHeader.slice(1, -1)
        : (actionHeader ?? '');
    const action = safeDecodeUri(trimmed);
    op = index.byAction.get(action);
    // The 1.1 helper never looked at the body: it answers in SOAP 1.1 whatever the envelope is.
    if (!op)
      return fault(
        '1.1',
        clientFault(`Server did not recognize the value of HTTP Header SOAPAction: ${action}.`),
      );
  } else {
    const given = media.params['action']?.trim();
    const action = given ? safeDecodeUri(given) : undefined;
    op = action === undefined ? undefined : index.byAction.get(action);
    if (!op) {
      // GetRequestElement. (A body that is not well-formed before the first Body child makes ASMX answer 500
      // with .NET's XmlException text here; the emulator answers it as it does later on: 400, empty.)
      const root = document();
      if (root instanceof XmlRejected) return rejected(root, guess, media);
      let failure: WireFault;
      const bodyEl = root.local === 'Envelope' ? childNamed(root, 'Body', root.ns) : undefined;
      if (root.local !== 'Envelope')
        failure = unableToProcess(MISSING_ENVELOPE, 'System.InvalidOperationException');
      else if (!bodyEl) failure = unableToProcess(MISSING_BODY, 'System.InvalidOperationException');
      else {
        const wrapper = firstElement(bodyEl);
        op = wrapper && wrapper.ns === binding.ns ? index.byName.get(wrapper.local) : undefined;
        failure = clientFault(
          action
            ? `Unable to handle request. The action '${action}' was not recognized.`
            : 'Unable to handle request without a valid action parameter. Please supply a valid soap action.',
        );
      }
      if (!op) {
        // The helper of the envelope that was read writes the fault (CheckHelperVersion first).
        const version = versionOf(root.ns);
        return version ? fault(version, failure) : fault('1.1', versionMismatch(root.ns));
      }
    }
  }

  // ReadParameters.
  if (media.type !== 'text/xml' && media.type !== 'application/soap+xml')
    return { kind: 'status', status: 415, version: guess };
  const root = document();
  if (root instanceof XmlRejected) return rejected(root, guess, media);
  const version = versionOf(root.ns);
  if (!version) return fault('1.1', versionMismatch(root.ns), op);
  if (version === '1.1' && media.type !== 'text/xml') return { kind: 'status', status: 415, version };
  if (root.local !== 'Envelope') return fault(version, unableToRead(MISSING_ENVELOPE), op);

  const envNs = root.ns;
  const header = childNamed(root, 'Header', envNs);
  for (const h of header?.children ?? []) {
    const mu = attr(h, envNs, 'mustUnderstand')?.trim();
    if (mu === '1' || mu === 'true') {
      return fault(
        version,
        new WireFault('MustUnderstand', [`SOAP header ${h.local} was not understood.`], [], false),
        op,
      );
    }
  }
  const bodyEl = childNamed(root, 'Body', envNs);
  if (!bodyEl) return fault(version, unableToRead(MISSING_BODY), op);
  const wrapper = firstElement(bodyEl);

  try {
    const params =
      op.style === 'rpc'
        ? readEncodedParams(op, wrapper, binding.ns, bodyEl, binding.catalogue)
        : readLiteralParams(op, wrapper, binding.ns, binding.catalogue);
    return { kind: 'call', version, op, params };
  } catch (err) {
    if (err instanceof WireFault) return fault(version, err, op);
    throw err;
  }
}

/**
 * A body that is not well-formed: 400 with an empty body, in the content type of the helper that answers.
 * A streaming reader has already read the root start tag if it was sound: its namespace picks that helper,
 * and the checks made on it (namespace, media type, element name) come before the error is found.
 */
function rejected(err: XmlRejected, guess: SoapVersion, media: MediaType): SoapOutcome {
  const root = err.root;
  if (!root) return { kind: 'status', status: 400, version: guess };
  const version = versionOf(root.ns);
  if (!version) return fault('1.1', versionMismatch(root.ns));
  if (version === '1.1' && media.type !== 'text/xml') return { kind: 'status', status: 415, version };
  if (root.local !== 'Envelope') return fault(version, unableToRead(MISSING_ENVELOPE));
  return { kind: 'status', status: 400, version };
}
