/**
 * Streaming response decoder (asmx-wire.md §3.2, §5.4, §5.5, §6, §7.3, §8, §10.1). The scanner tokenizes
 * without namespace processing (cheaper); prefixes are resolved here from a scope chain that only grows on
 * elements that declare namespaces. Each element's meaning comes from the catalogue plan of its parent, values are
 * converted when their element closes and stored straight into the result.
 */
import type { Catalogue } from '../catalogue/catalogue';
import type { OperationDef } from '../catalogue/types';
import { GatewayError } from '../errors';
import { faultError } from './fault';
import { NS } from './ns';
import {
  COMPLEX,
  type FieldPlan,
  LIST,
  PRIM,
  READ_INT,
  READ_STRING,
  type Plan,
  type PrimPlan,
  planOf,
} from './plan';
import { readInt } from './read-values';
import type { Transport } from './request';
import { ByteTextChunks, utf8Of } from './utf8-chunks';
import { WarnOnce, type WarningSink } from './warnings';
import { XmlScanner, decodeText, type ScanHandler } from './xml-scanner';

export interface ResponseDecoder {
  write(chunk: Uint8Array): void;
  end(): unknown;
}

export interface DecodeOptions {
  transport: Transport;
  /** How to read a dateTime without zone: as UTC (default) or as this process's local time. */
  zoneless?: 'utc' | 'local';
  /** Told (once per field and answer) of values kept as raw text and of unknown elements skipped. */
  warn?: WarningSink | undefined;
  /** Where the result's types are defined (default: the package's catalogue). */
  catalogue?: Catalogue | undefined;
}

// Frame modes.
const DOC = 0;
const SKIP = 1;
const ENVELOPE = 2;
const BODY = 3;
const WRAPPER = 4;
const VALUE = 5;
const RPC_RESULT = 6;
const FAULT = 7;
const FAULT_CODE = 8; // SOAP 1.2 Code (holds Value)
const FAULT_REASON = 9; // SOAP 1.2 Reason (holds Text)
const FAULT_CODE_TEXT = 10;
const FAULT_STRING_TEXT = 11;

const PUSH = -1;

type Container = Record<string, unknown> | unknown[];
type NsScope = Record<string, string | undefined>;

class Frame {
  mode = DOC;
  plan: Plan | null = null;
  target: Container | null = null;
  key: string | number = PUSH;
  value: unknown = undefined;
  text = '';
  collect = false;
  nil = false;
  /** The accessor points elsewhere (href / soapenc:ref): nothing to deliver at close. */
  ref = false;
  id: string | null = null;
  ns: NsScope = ROOT_NS;
  /** COMPLEX values: index of the field expected next (fields usually arrive in declaration order). */
  next = 0;
  /** SOAP-encoded (an id or an encoding attribute): array items may have any name. */
  encoded = false;
}

interface PendingRef {
  plan: Plan;
  target: Container;
  key: string | number;
}

const ROOT_NS: NsScope = Object.freeze({ xml: 'http://www.w3.org/XML/1998/namespace' }) as NsScope;
const EXCERPT_BYTES = 400;

function put(target: Container, key: string | number, v: unknown): void {
  if (key === PUSH) (target as unknown[]).push(v);
  else (target as Record<string | number, unknown>)[key] = v;
}

const isDeclaration = (k: string): boolean =>
  k.charCodeAt(0) === 120 && k.startsWith('xmlns') && (k.length === 5 || k.charCodeAt(5) === 58);

interface ScopeEntry {
  decls: string[];
  scope: NsScope;
}

/**
 * Scopes are read-only once made, so responses that declare the same namespaces (every response of a service
 * does, on the Envelope and the wrapper) share them: building a scope was a tenth of decoding a small answer.
 * Flat copies, not prototype chains: those cost V8 new hidden classes per response.
 */
const scopeCache = new WeakMap<NsScope, ScopeEntry[]>();
const SCOPES_PER_PARENT = 16;

function childScope(parent: NsScope, decls: string[]): NsScope {
  let list = scopeCache.get(parent);
  if (list) {
    outer: for (const e of list) {
      if (e.decls.length !== decls.length) continue;
      for (let i = 0; i < decls.length; i++) if (e.decls[i] !== decls[i]) continue outer;
      return e.scope;
    }
  } else scopeCache.set(parent, (list = []));
  const scope: NsScope = Object.assign({}, parent);
  for (let i = 0; i < decls.length; i += 2) {
    const k = decls[i] as string;
    scope[k.length === 5 ? '' : k.slice(6)] = decls[i + 1];
  }
  Object.freeze(scope);
  if (list.length < SCOPES_PER_PARENT) list.push({ decls, scope });
  return scope;
}

/**
 * V8 makes a string of 13 or more characters cut from another (`slice`) a view that keeps the whole other one
 * alive: here a 64 KiB chunk of the answer (128 KiB as two-byte text) per value kept. A 5,000-record page so held
 * all its chunks (~4.4 MB) until its last record was dropped, and every young-generation GC on the way copied
 * them (a third of what each copied, the longest pauses of a DLR page). Concatenating makes a new string, and
 * slicing that flattens it into a copy of the value alone.
 */
const SLICE_MIN = 13;
const ownCopy = (s: string): string => (' ' + s).slice(1);

const localOf = (qname: string): string => {
  const i = qname.indexOf(':');
  return i < 0 ? qname : qname.slice(i + 1);
};

/** The decoder is its scanner's handler itself: no handler object and four closures per answer. */
class Decoder implements ResponseDecoder, ScanHandler {
  private readonly parser = new XmlScanner(this);
  /**
   * The answer as byte text (src/soap/utf8-chunks.ts): names and markup are ASCII; text values are turned into
   * characters in text() and cdata(), names only where they reach a person (warnings, errors). Attribute values
   * stay byte text: they are only compared (namespaces, nil, ids), never handed on.
   */
  private readonly bytes = new ByteTextChunks();
  private readonly stack: Frame[] = [new Frame()];
  private depth = 0;
  private readonly holder: Record<string, unknown> = {};
  private readonly soap: boolean;
  private readonly resultPlan: Plan;
  private readonly wrapperName: string;
  private resultName: string;
  private envNs = '';
  private wrapperSeen = false;
  private done = false;
  private faultCode: string | undefined;
  private faultString: string | undefined;
  // RPC/encoded references only: most responses never need these maps.
  private refs: Map<string, unknown> | null = null;
  private pending: Map<string, PendingRef[]> | null = null;
  private error: GatewayError | undefined;
  /** The first chunks, kept for an error's body excerpt (copied only then). */
  private readonly head: Uint8Array[] = [];
  private headBytes = 0;
  private readonly warnings: WarnOnce;

  constructor(
    private readonly op: OperationDef,
    opts: DecodeOptions,
  ) {
    this.warnings = new WarnOnce(opts.warn, op.service, op.name);
    this.soap = opts.transport === 'soap11' || opts.transport === 'soap12';
    this.resultPlan = planOf(op.result.type, opts.zoneless ?? 'utc', opts.catalogue);
    this.wrapperName = `${op.name}Response`;
    this.resultName = `${op.name}Result`;
  }

  write(chunk: Uint8Array): void {
    if (this.error) throw this.error;
    if (this.headBytes < EXCERPT_BYTES) {
      this.head.push(chunk);
      this.headBytes += chunk.length;
    }
    try {
      const s = this.bytes.decode(chunk);
      if (s) this.parser.write(s);
    } catch (e) {
      throw this.fail(e);
    }
  }

  end(): unknown {
    if (this.error) throw this.error;
    try {
      const s = this.bytes.end();
      if (s) this.parser.write(s);
      this.parser.end();
      if (!this.done) throw new Error('the document ended early');
      if (this.pending) for (const id of this.pending.keys()) throw new Error(`unresolved reference #${id}`);
    } catch (e) {
      throw this.fail(e);
    }
    return this.holder.v;
  }

  private fail(e: unknown): GatewayError {
    if (!this.error) {
      if (e instanceof GatewayError) this.error = e;
      else {
        // Names in the scanner's messages are byte text; our own words are ASCII.
        const why = utf8Of(e instanceof Error ? e.message : String(e));
        this.error = new GatewayError('PARSE', `cannot decode the response: ${why}`, {
          service: this.op.service,
          operation: this.op.name,
          body: this.bodyExcerpt(),
          cause: e,
        });
      }
    }
    return this.error;
  }

  private bodyExcerpt(): string {
    const bytes = Buffer.concat(this.head).subarray(0, EXCERPT_BYTES);
    const s = bytes.toString('utf8').replace(/\s+/g, ' ').trim();
    return s.length > 200 ? `${s.slice(0, 200)}…` : s;
  }

  open(name: string, attrs: string[] | null): void {
    this.onOpen(name, attrs);
  }

  close(): void {
    this.onClose();
  }

  text(s: string, start: number, end: number): void {
    const f = this.stack[this.depth] as Frame;
    if (!f.collect) return;
    // A piece of text is whole characters (cut only at '<', '&' or CR, or where ByteTextChunks cut): its bytes
    // become characters before references are read, so `&#xE9;` and a raw é both end up as é.
    const t = utf8Of(s.slice(start, end));
    f.text += decodeText(t, 0, t.length);
  }

  cdata(t: string): void {
    const f = this.stack[this.depth] as Frame;
    if (f.collect) f.text += utf8Of(t);
  }

  private onOpen(name: string, attrs: string[] | null): void {
    const parent = this.stack[this.depth] as Frame;
    const d = ++this.depth;
    let f = this.stack[d];
    if (f === undefined) {
      f = new Frame();
      this.stack[d] = f;
    }
    // Only what every mode reads is reset here; openValue sets the rest for VALUE frames.
    f.ns = parent.ns;
    f.text = '';
    f.collect = false;
    f.nil = false;
    f.ref = false;
    f.id = null;
    f.encoded = false;
    const refId = attrs === null ? null : this.scanAttributes(f, attrs);
    switch (parent.mode) {
      case VALUE: {
        const plan = parent.plan as Plan;
        if (plan.k === COMPLEX) {
          // Fields come in declaration order: comparing names from the expected one on is cheaper than hashing
          // each fresh tag name for a Map lookup. Out-of-order and prefixed names fall back to the map.
          const list = plan.list;
          let field: FieldPlan | undefined;
          for (let i = parent.next; i < list.length; i++) {
            if ((list[i] as FieldPlan).name === name) {
              field = list[i];
              parent.next = i + 1;
              break;
            }
          }
          field ??=
            plan.fields.get(name) ?? (name.indexOf(':') < 0 ? undefined : plan.fields.get(localOf(name)));
          if (parent.value === undefined) f.mode = SKIP;
          else if (field === undefined) this.skipUnknown(f, plan.name, name);
          else this.openValue(f, field.plan, parent.value as Container, field.name, refId);
        } else if (plan.k === LIST) {
          if (parent.value === undefined) f.mode = SKIP;
          // Literal lists name their items after the type (XmlSerializer skips any other element); encoded
          // arrays name them freely (`Item`).
          else if (parent.encoded || name === plan.itemName || localOf(name) === plan.itemName)
            this.openValue(f, plan.item, parent.value as Container, PUSH, refId);
          else this.skipUnknown(f, this.pathOf(d - 1), name);
        } else if (parent.nil || parent.ref) f.mode = SKIP;
        else this.skipUnknown(f, this.pathOf(d - 1), name);
        return;
      }
      case SKIP:
        f.mode = SKIP;
        return;
      case DOC:
        this.openRoot(f, name, refId);
        return;
      case ENVELOPE: {
        const local = localOf(name);
        f.mode = local === 'Body' && this.nsOf(f, name) === this.envNs ? BODY : SKIP;
        return;
      }
      case BODY:
        this.openBodyChild(f, name, refId);
        return;
      case WRAPPER: {
        const local = localOf(name);
        if (local === 'result' && this.nsOf(f, name) === NS.rpc12) {
          f.mode = RPC_RESULT;
          f.collect = true;
        } else if (local === this.resultName) {
          this.openValue(f, this.resultPlan, this.holder, 'v', refId);
        } else this.skipUnknown(f, this.wrapperName, name);
        return;
      }
      case FAULT: {
        const local = localOf(name);
        if (local === 'faultcode') f.mode = FAULT_CODE_TEXT;
        else if (local === 'faultstring') f.mode = FAULT_STRING_TEXT;
        else if (local === 'Code') f.mode = FAULT_CODE;
        else if (local === 'Reason') f.mode = FAULT_REASON;
        else f.mode = SKIP;
        f.collect = f.mode !== SKIP && f.mode !== FAULT_CODE && f.mode !== FAULT_REASON;
        return;
      }
      case FAULT_CODE:
      case FAULT_REASON: {
        const want = parent.mode === FAULT_CODE ? 'Value' : 'Text';
        f.mode =
          localOf(name) === want ? (parent.mode === FAULT_CODE ? FAULT_CODE_TEXT : FAULT_STRING_TEXT) : SKIP;
        f.collect = f.mode !== SKIP;
        return;
      }
      default:
        f.mode = SKIP;
    }
  }

  /** Declarations first (they may follow the attributes that use them), then nil / id / references. */
  private scanAttributes(f: Frame, attrs: string[]): string | null {
    let decls: string[] | null = null;
    let others = false;
    for (let a = 0; a < attrs.length; a += 2) {
      const k = attrs[a] as string;
      if (isDeclaration(k)) (decls ??= []).push(k, attrs[a + 1] as string);
      else others = true;
    }
    if (decls !== null) f.ns = childScope(f.ns, decls);
    if (!others) return null;
    let refId: string | null = null;
    for (let a = 0; a < attrs.length; a += 2) {
      const k = attrs[a] as string;
      const v = attrs[a + 1] as string;
      const i = k.indexOf(':');
      if (i < 0) {
        if (k === 'href') refId = v.charCodeAt(0) === 35 ? v.slice(1) : v;
        else if (k === 'id') {
          f.id = v;
          f.encoded = true;
        }
        continue;
      }
      if (isDeclaration(k)) continue;
      const local = k.slice(i + 1);
      const uri = f.ns[k.slice(0, i)];
      if (uri === NS.xsi) {
        if ((local === 'nil' || local === 'null') && (v.trim() === 'true' || v.trim() === '1')) f.nil = true;
      } else if (uri === NS.enc12 || uri === NS.enc11) {
        f.encoded = true;
        if (local === 'id') f.id = v;
        else if (local === 'ref') refId = v.charCodeAt(0) === 35 ? v.slice(1) : v;
      }
    }
    return refId;
  }

  private nsOf(f: Frame, qname: string): string | undefined {
    const i = qname.indexOf(':');
    return f.ns[i < 0 ? '' : qname.slice(0, i)];
  }

  private openRoot(f: Frame, name: string, refId: string | null): void {
    const local = localOf(name);
    if (this.soap) {
      const ns = this.nsOf(f, name);
      if (local !== 'Envelope' || (ns !== NS.soap11 && ns !== NS.soap12)) {
        throw new Error(`expected a SOAP Envelope, found <${name}>`);
      }
      this.envNs = ns;
      f.mode = ENVELOPE;
    } else {
      if (local !== this.op.result.bare)
        throw new Error(`expected <${this.op.result.bare}>, found <${name}>`);
      this.openValue(f, this.resultPlan, this.holder, 'v', refId);
    }
  }

  private openBodyChild(f: Frame, name: string, refId: string | null): void {
    const local = localOf(name);
    if (!this.wrapperSeen) {
      this.wrapperSeen = true;
      if (local === 'Fault' && this.nsOf(f, name) === this.envNs) {
        f.mode = FAULT;
        return;
      }
      if (local !== this.wrapperName) throw new Error(`expected <${this.wrapperName}>, found <${name}>`);
      f.mode = WRAPPER;
      return;
    }
    // SOAP 1.1 multi-ref values: Body siblings after the wrapper, found by their id.
    const waiting = f.id === null || this.pending === null ? undefined : this.pending.get(f.id);
    if (waiting === undefined) {
      f.mode = SKIP;
      return;
    }
    this.openValue(f, (waiting[0] as PendingRef).plan, null, PUSH, refId);
  }

  private openValue(
    f: Frame,
    plan: Plan,
    target: Container | null,
    key: string | number,
    refId: string | null,
  ): void {
    f.mode = VALUE;
    f.plan = plan;
    f.target = target;
    f.key = key;
    f.value = undefined;
    f.next = 0;
    if (f.nil) {
      if (target) put(target, key, null);
      f.target = null;
      return;
    }
    if (refId !== null) {
      f.ref = true;
      if (target === null) return;
      if (this.refs?.has(refId)) {
        put(target, key, this.refs.get(refId));
        return;
      }
      if (key === PUSH) {
        key = (target as unknown[]).length;
        (target as unknown[]).push(undefined);
      }
      this.pending ??= new Map();
      const list = this.pending.get(refId);
      const ref = { plan, target, key };
      if (list) list.push(ref);
      else this.pending.set(refId, [ref]);
      return;
    }
    if (plan.k === PRIM) {
      f.collect = true;
      return;
    }
    // Containers are placed at open so that items keep their order whatever their content.
    const value = plan.k === COMPLEX ? new plan.Record() : [];
    f.value = value;
    this.deliver(f, value);
  }

  private deliver(f: Frame, v: unknown): void {
    if (f.target !== null) put(f.target, f.key, v);
    const id = f.id;
    if (id !== null) {
      (this.refs ??= new Map()).set(id, v);
      const waiting = this.pending?.get(id);
      if (waiting) {
        this.pending?.delete(id);
        for (const r of waiting) put(r.target, r.key, v);
      }
    }
  }

  /** A value that does not fit its type keeps its raw text (one odd field must not cost the whole page). */
  private oddValue(plan: PrimPlan, text: string): string {
    this.warnings.oddValue(this.pathOf(this.depth + 1), text, plan.type);
    return text;
  }

  /** Skips an element the catalogue does not know where it appears, as XmlSerializer does, with a warning. */
  private skipUnknown(f: Frame, where: string, name: string): void {
    f.mode = SKIP;
    this.warnings.unknownElement(where, utf8Of(localOf(name)));
  }

  /** A readable name of the value at stack depth d: `SMSReport.Date`, `SOAPResponseOfDouble.Value`, `…[]`. */
  private pathOf(d: number): string {
    const f = this.stack[d] as Frame;
    const parent = d > 0 ? (this.stack[d - 1] as Frame) : undefined;
    if (parent?.mode === VALUE) {
      const plan = parent.plan as Plan;
      if (plan.k === COMPLEX) return `${plan.name}.${String(f.key)}`;
      if (plan.k === LIST) return `${this.pathOf(d - 1)}[]`;
    }
    const own = f.plan;
    return own?.k === COMPLEX ? own.name : this.resultName;
  }

  private onClose(): void {
    const f = this.stack[this.depth] as Frame;
    this.depth--;
    switch (f.mode) {
      case VALUE: {
        if (f.nil || f.ref) break;
        const plan = f.plan as Plan;
        if (plan.k === PRIM) {
          const text = f.text;
          let v: unknown;
          if (plan.r === READ_STRING) v = text.length < SLICE_MIN ? text : ownCopy(text);
          else {
            try {
              v = plan.r === READ_INT ? readInt(text) : plan.read(text);
            } catch {
              v = this.oddValue(plan, text);
            }
          }
          if (f.id === null && f.target !== null) put(f.target, f.key, v);
          else this.deliver(f, v);
        } else if (plan.k === COMPLEX) {
          const obj = f.value as Record<string, unknown>;
          const defaults = plan.defaults;
          for (let i = 0; i < defaults.length; i++) {
            const d = defaults[i] as readonly [string, unknown];
            if (obj[d[0]] === undefined) obj[d[0]] = d[1];
          }
        }
        if (this.depth === 0) this.done = true;
        break;
      }
      case RPC_RESULT: {
        const name = localOf(f.text.trim());
        if (name) this.resultName = name;
        break;
      }
      case FAULT_CODE_TEXT:
        this.faultCode ??= f.text.trim();
        break;
      case FAULT_STRING_TEXT:
        this.faultString ??= f.text.trim();
        break;
      case FAULT:
        throw faultError(this.faultString, this.faultCode, {
          service: this.op.service,
          operation: this.op.name,
        });
      case ENVELOPE:
        this.done = true;
        break;
    }
    if (this.depth === 0 && f.mode === VALUE) this.done = true;
  }
}

/**
 * Decodes a response body incrementally as chunks arrive, directed by the catalogue. Returns the JS value per
 * the conventions in src/emulator/contract.ts. A SOAP fault → GatewayError('FAULT'); anything not decodable →
 * GatewayError('PARSE') with a short body excerpt. Never throws anything else.
 */
export function createResponseDecoder(op: OperationDef, opts: DecodeOptions): ResponseDecoder {
  return new Decoder(op, opts);
}
