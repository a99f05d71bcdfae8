/**
 * Request builder: catalogue operation + JS params → the exact HTTP request for one of the four transports
 * (asmx-wire.md §3.1, §4, §5.3, §5.5, §7.2, §10.2). Per (operation, transport, namespace) the static parts
 * are compiled once into string fragments; a call only coerces, escapes and concatenates.
 */
import type { OperationDef, ParamDef } from '../catalogue/types';
import { CATALOGUE, encodedTypesNamespace, soapAction, type Catalogue } from '../catalogue';
import { GatewayError } from '../errors';
import {
  CoerceError,
  coerceBoolean,
  coerceBytes,
  coerceDateTime,
  coerceDouble,
  coerceEnum,
  coerceInt,
  coerceList,
  coerceString,
  wireDefault,
} from './coerce';
import { escapeAttr, escapeText } from './escape';
import { NS } from './ns';
import { formatBase64 } from './values';

export type Transport = 'soap11' | 'soap12' | 'get' | 'post';

export interface WireRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface BuildOptions {
  transport: Transport;
  namespace: string;
  path: string;
  /** Where the operation's enumerations are defined (default: the package's catalogue). */
  catalogue?: Catalogue;
}

type Kind = 'string' | 'int' | 'double' | 'boolean' | 'dateTime' | 'base64' | 'enum' | 'list';

interface ParamPlan {
  readonly def: ParamDef;
  readonly kind: Kind;
  /** SOAP: `<Name>` / `<Name xsi:type="xsd:int">`; for RPC arrays only the part before the size. */
  readonly open: string;
  readonly close: string;
  readonly itemOpen: string;
  readonly itemClose: string;
  /** RPC arrays: text after the item count, e.g. `]">` (1.1) or `">` (1.2). */
  readonly openTail: string;
  /** GET/POST: `Name=` url-encoded. */
  readonly key: string;
  readonly wireDefault: string | undefined;
  readonly enumName: string;
  readonly enumValues: ReadonlySet<string> | undefined;
}

interface Plan {
  readonly namespace: string;
  readonly catalogue: Catalogue;
  readonly params: readonly ParamPlan[];
  /** Parameter names (null prototype: no inherited keys). */
  readonly names: Readonly<Record<string, true>>;
  readonly head: string;
  readonly tail: string;
  readonly headers: () => Record<string, string>;
  readonly rpc: boolean;
}

const XML_DECL = '<?xml version="1.0" encoding="utf-8"?>';

function kindOf(p: ParamDef): Kind {
  const t = p.type;
  switch (t.kind) {
    case 'enum':
      return 'enum';
    case 'list':
      return 'list';
    case 'complex':
      throw new Error(`complex parameter ${p.name} cannot be sent`);
    default:
      return t.name === 'base64Binary' ? 'base64' : t.name;
  }
}

const XSD_TYPE: Record<Kind, string> = {
  string: 'xsd:string',
  int: 'xsd:int',
  double: 'xsd:double',
  boolean: 'xsd:boolean',
  dateTime: 'xsd:dateTime',
  base64: 'xsd:base64Binary',
  enum: '',
  list: '',
};

function itemXsdType(p: ParamDef): string {
  if (p.type.kind !== 'list' || p.type.item.kind !== 'primitive') {
    throw new Error(`list parameter ${p.name} must hold primitives`);
  }
  return `xsd:${p.type.item.name}`;
}

function compile(op: OperationDef, transport: Transport, namespace: string, catalogue: Catalogue): Plan {
  const soap = transport === 'soap11' || transport === 'soap12';
  const rpc = soap && op.style === 'rpc';
  const v12 = transport === 'soap12';
  const params = op.params.map((def): ParamPlan => {
    const kind = kindOf(def);
    const n = def.name;
    let open = `<${n}>`;
    let openTail = '';
    let itemOpen = '';
    let itemClose = '';
    if (kind === 'list' && def.type.kind === 'list') {
      if (rpc) {
        const it = itemXsdType(def);
        open = v12
          ? `<${n} enc:itemType="${it}" enc:arraySize="`
          : `<${n} xsi:type="soapenc:Array" soapenc:arrayType="${it}[`;
        openTail = v12 ? '">' : ']">';
        itemOpen = '<Item>';
        itemClose = '</Item>';
      } else {
        itemOpen = `<${def.type.itemElement}>`;
        itemClose = `</${def.type.itemElement}>`;
      }
    } else if (rpc) {
      const xt = def.type.kind === 'enum' ? `types:${def.type.name}` : XSD_TYPE[kind];
      open = `<${n} xsi:type="${xt}">`;
    }
    return {
      def,
      kind,
      open,
      close: `</${n}>`,
      itemOpen,
      itemClose,
      openTail,
      key: `${encodeURIComponent(n)}=`,
      wireDefault: wireDefault(def.type, def.allowed, catalogue),
      enumName: def.type.kind === 'enum' ? def.type.name : '',
      enumValues:
        def.type.kind === 'enum'
          ? new Set(def.allowed ?? catalogue.enumType(def.type.name).values)
          : undefined,
    };
  });
  const action = soapAction(namespace, op.name);
  const nsAttr = escapeAttr(namespace);
  let head = '';
  let tail = '';
  let headers = (): Record<string, string> => ({});
  if (soap) {
    const env = v12 ? NS.soap12 : NS.soap11;
    const xs = `xmlns:xsi="${NS.xsi}" xmlns:xsd="${NS.xsd}"`;
    if (rpc) {
      const enc = v12 ? `xmlns:enc="${NS.enc12}"` : `xmlns:soapenc="${NS.enc11}"`;
      const types = escapeAttr(encodedTypesNamespace(namespace));
      const body = v12 ? '<soap:Body>' : `<soap:Body soap:encodingStyle="${NS.enc11}">`;
      head = `${XML_DECL}<soap:Envelope xmlns:soap="${env}" ${enc} xmlns:tns="${nsAttr}" xmlns:types="${types}" ${xs}>${body}<tns:${op.name}>`;
      tail = `</tns:${op.name}></soap:Body></soap:Envelope>`;
    } else {
      head = `${XML_DECL}<soap:Envelope xmlns:soap="${env}" ${xs}><soap:Body><${op.name} xmlns="${nsAttr}">`;
      tail = `</${op.name}></soap:Body></soap:Envelope>`;
    }
    const ct12 = `application/soap+xml; charset=utf-8; action="${action}"`;
    const quoted = `"${action}"`;
    headers = v12
      ? () => ({ 'content-type': ct12 })
      : () => ({ 'content-type': 'text/xml; charset=utf-8', soapaction: quoted });
  } else if (transport === 'post') {
    headers = () => ({ 'content-type': 'application/x-www-form-urlencoded' });
  }
  const names = Object.create(null) as Record<string, true>;
  for (const p of op.params) names[p.name] = true;
  return { namespace, catalogue, params, names, head, tail, headers, rpc };
}

/** Per operation and transport, the plans by namespace and catalogue (in practice one of each per operation). */
type PlanSlots = Record<Transport, Plan[] | undefined>;
const plans = new WeakMap<OperationDef, PlanSlots>();

function planFor(op: OperationDef, transport: Transport, namespace: string, catalogue: Catalogue): Plan {
  let slots = plans.get(op);
  if (!slots) {
    slots = { soap11: undefined, soap12: undefined, get: undefined, post: undefined };
    plans.set(op, slots);
  }
  const list = (slots[transport] ??= []);
  for (let i = 0; i < list.length; i++) {
    const plan = list[i] as Plan;
    if (plan.namespace === namespace && plan.catalogue === catalogue) return plan;
  }
  const plan = compile(op, transport, namespace, catalogue);
  list.push(plan);
  return plan;
}

/** Text of one scalar value (never a list). `param` = GET/POST spelling. */
function scalarText(pp: ParamPlan, v: unknown, param: boolean): string {
  const name = pp.def.name;
  switch (pp.kind) {
    case 'string':
      return coerceString(name, v);
    case 'int':
      return coerceInt(name, v);
    case 'double':
      return coerceDouble(name, v, param);
    case 'boolean':
      return coerceBoolean(name, v);
    case 'dateTime':
      return coerceDateTime(name, v);
    case 'enum':
      return coerceEnum(name, v, pp.enumValues as ReadonlySet<string>);
    case 'base64':
      return formatBase64(coerceBytes(name, v));
    default:
      throw new CoerceError(`parameter ${name}: unsupported type`);
  }
}

function soapBody(plan: Plan, params: Record<string, unknown>): string {
  let s = plan.head;
  for (const pp of plan.params) {
    const v = params[pp.def.name];
    if (v === undefined || (v === null && pp.kind !== 'dateTime')) {
      if (pp.def.optional) continue;
      throw new CoerceError(`parameter ${pp.def.name} is required`);
    }
    if (pp.kind === 'list') {
      const items = coerceList(pp.def.name, v);
      s += plan.rpc ? pp.open + items.length + pp.openTail : pp.open;
      for (const item of items) s += pp.itemOpen + escapeText(coerceString(pp.def.name, item)) + pp.itemClose;
      s += pp.close;
    } else {
      s += pp.open + escapeText(scalarText(pp, v, false)) + pp.close;
    }
  }
  return s + plan.tail;
}

function formBody(plan: Plan, params: Record<string, unknown>): string {
  let s = '';
  for (const pp of plan.params) {
    const v = params[pp.def.name];
    if (v === undefined || (v === null && pp.kind !== 'dateTime')) {
      if (!pp.def.optional) throw new CoerceError(`parameter ${pp.def.name} is required`);
      if (pp.wireDefault !== undefined) s += (s ? '&' : '') + pp.key + encodeURIComponent(pp.wireDefault);
      continue;
    }
    if (pp.kind === 'list') {
      for (const item of coerceList(pp.def.name, v)) {
        s += (s ? '&' : '') + pp.key + encodeURIComponent(coerceString(pp.def.name, item));
      }
    } else if (pp.kind === 'base64') {
      // ASMX binds byte[] from GET/POST as an array of byte: one key per byte (asmx-wire.md §7.2).
      for (const b of coerceBytes(pp.def.name, v)) s += (s ? '&' : '') + pp.key + b;
    } else {
      s += (s ? '&' : '') + pp.key + encodeURIComponent(scalarText(pp, v, true));
    }
  }
  return s;
}

/**
 * params: JS values keyed by the catalogue's parameter names, credentials included. path: the service path,
 * e.g. '/gateway/Send.asmx' (GET/POST append '/<Op>' and, for GET, '?query'). Throws GatewayError('VALIDATION')
 * (with operation set) for a value of the wrong type, a missing required value or an unknown parameter name.
 */
export function buildRequest(
  op: OperationDef,
  params: Record<string, unknown>,
  opts: BuildOptions,
): WireRequest {
  const plan = planFor(op, opts.transport, opts.namespace, opts.catalogue ?? CATALOGUE);
  try {
    for (const k in params) {
      if (plan.names[k] !== true && params[k] !== undefined) throw new CoerceError(`unknown parameter ${k}`);
    }
    switch (opts.transport) {
      case 'soap11':
      case 'soap12':
        return { method: 'POST', path: opts.path, headers: plan.headers(), body: soapBody(plan, params) };
      case 'post':
        return {
          method: 'POST',
          path: `${opts.path}/${op.name}`,
          headers: plan.headers(),
          body: formBody(plan, params),
        };
      case 'get': {
        const q = formBody(plan, params);
        return { method: 'GET', path: `${opts.path}/${op.name}${q ? '?' + q : ''}`, headers: {} };
      }
      default:
        throw new CoerceError(`unknown transport ${String(opts.transport)}`);
    }
  } catch (e) {
    if (e instanceof CoerceError) {
      throw new GatewayError('VALIDATION', e.message, { service: op.service, operation: op.name });
    }
    throw new GatewayError('VALIDATION', e instanceof Error ? e.message : String(e), {
      service: op.service,
      operation: op.name,
      cause: e,
    });
  }
}
