import { CATALOGUE, ENUMS, operationKey } from '../../catalogue';
import type { Catalogue, OperationDef, ParamDef, ServiceName, TypeRef } from '../../catalogue';
import { GatewayError } from '../../errors';
import { bytesOf, isBytes, isDate as isDateValue } from '../../shape';
import { CONTENT_PARAMS, overContentCap } from '../../text';
import { legacySmsTypeCodes } from '../../text/limits';
import { toDate, toInt, toRecipients, toText } from './props';
import type { TypedValue } from '../config/types';

/**
 * Which operations each node's *Operation* menu offers, as "service/Name" keys, from the catalogue: each entry
 * names the node that offers it (`node`); the any-operation node lists every operation (any other name can be
 * typed). In catalogue order.
 */
export function nodeOperations(catalogue: Catalogue = CATALOGUE): Record<string, readonly string[]> {
  const out: Record<string, string[]> = {};
  for (const op of catalogue.operations) if (op.node) (out[op.node] ??= []).push(operationKey(op));
  out['smsgw-call'] = catalogue.operations.map(operationKey);
  return out;
}

/** The menus of the package's catalogue. */
export const NODE_OPERATIONS: Readonly<Record<string, readonly string[]>> = nodeOperations();

export function operationOf(key: string, catalogue: Catalogue = CATALOGUE): OperationDef {
  const [service, name] = key.split('/') as [ServiceName, string];
  const op = catalogue.find(service, name ?? '');
  if (!op) throw new GatewayError('CONFIG', `unknown operation ${key}`);
  return op;
}

/** Operations chosen before, by node type and the name asked for (every msg asks again). */
const selected = new Map<string, Map<string, OperationDef>>();

/**
 * Picks the operation for a message: msg.operation (name or "service/Name") may choose any operation the
 * node offers; otherwise the configured one.
 */
export function selectOperation(nodeType: string, configured: string, override: unknown): OperationDef {
  const wanted = override === undefined ? configured : String(override);
  let byName = selected.get(nodeType);
  if (byName === undefined) {
    byName = new Map();
    selected.set(nodeType, byName);
  }
  let op = byName.get(wanted);
  if (op === undefined) {
    op = pickOperation(nodeType, wanted);
    // Only names a node offers get here: a handful per node type.
    byName.set(wanted, op);
  }
  return op;
}

function pickOperation(nodeType: string, wanted: string): OperationDef {
  const allowed = NODE_OPERATIONS[nodeType] ?? [];
  const key = allowed.find((k) => k === wanted || k.split('/')[1] === wanted);
  if (!key) {
    throw new GatewayError(
      'VALIDATION',
      `operation "${wanted}" is not offered by ${nodeType} (${allowed.join(', ')})`,
    );
  }
  return operationOf(key);
}

/** Parameters a flow supplies (User/Password and serial/password come from the config node). */
export function userParams(op: OperationDef): readonly ParamDef[] {
  let params = flowParams.get(op);
  if (params === undefined) {
    params = op.params.filter((p) => !p.credential);
    flowParams.set(op, params);
  }
  return params;
}

const flowParams = new WeakMap<OperationDef, readonly ParamDef[]>();

function coerce(type: TypeRef, value: unknown, name: string): unknown {
  switch (type.kind) {
    case 'list':
      return type.item.kind === 'primitive' && type.item.name === 'string'
        ? toRecipients(value)
        : Array.isArray(value)
          ? value
          : [value];
    case 'enum': {
      const text = String(value).trim();
      const def = ENUMS[type.name];
      if (def && !def.open && !def.values.includes(text)) {
        throw new GatewayError(
          'VALIDATION',
          `${name} must be one of ${def.values.join(', ')}; got "${text}"`,
        );
      }
      return text;
    }
    case 'complex':
      return value;
    case 'primitive':
      switch (type.name) {
        case 'int':
          return toInt(value, name);
        case 'double': {
          const n = Number(value);
          if (!Number.isFinite(n)) throw new GatewayError('VALIDATION', `${name} must be a number`);
          return n;
        }
        case 'boolean':
          return value === true || value === 'true' || value === 1 || value === '1';
        case 'dateTime':
          return toDate(value, name);
        case 'base64Binary':
          // SMSCR's bRecipient holds the recipient list as UTF-8 text; other byte parameters take a Buffer,
          // a byte array or base64 text as the client does.
          if (isBytes(value)) return bytesOf(value);
          if (Array.isArray(value)) return value;
          return name === 'bRecipient' ? Buffer.from(toRecipients(value).join(','), 'utf8') : toText(value);
        default:
          // The client formats a Date for the older service's string date parameters itself.
          return isDateValue(value) ? toDate(value, name) : toText(value);
      }
  }
}

const isDate = (p: ParamDef): boolean => p.type.kind === 'primitive' && p.type.name === 'dateTime';

/**
 * What a required parameter the flow left blank is sent as: .NET's "no date" for a dateTime, empty text
 * for a string; numbers stay missing so the client reports them.
 */
export function blankValue(p: ParamDef): unknown {
  if (p.optional) return undefined;
  if (isDate(p)) return null;
  if (p.type.kind === 'primitive' && p.type.name === 'string') return '';
  return undefined;
}

/** Converts loosely typed flow values into what the catalogue says the parameter is. */
export function coerceParam(param: ParamDef, value: unknown): unknown {
  if (value === undefined) return undefined;
  // A text or data no SMS can carry, before it is converted (bytes decoded) or read.
  const tooLarge = CONTENT_PARAMS.includes(param.name) ? overContentCap(param.name, value) : undefined;
  if (tooLarge !== undefined) throw new GatewayError('VALIDATION', tooLarge, { ambiguous: false });
  if (value === null) return isDate(param) ? null : undefined;
  const out = coerce(param.type, value, param.name);
  if (param.allowed && !param.allowed.includes(String(out))) {
    throw new GatewayError(
      'VALIDATION',
      `${param.name} must be one of ${param.allowed.join(', ')}; got "${String(out)}"`,
    );
  }
  return out;
}

export function coerceParams(op: OperationDef, raw: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const p of userParams(op)) {
    const v = coerceParam(p, raw[p.name]);
    if (v !== undefined) out[p.name] = v;
  }
  return out;
}

/** Where a parameter comes from when the dialog leaves it unset (per node type). */
export const PARAM_DEFAULTS: Readonly<Record<string, Readonly<Record<string, TypedValue>>>> = {
  'smsgw-legacy-send-text': {
    SMSText: { value: 'payload', type: 'msg' },
    Msg: { value: 'payload', type: 'msg' },
    strMsg: { value: 'payload', type: 'msg' },
    Data: { value: 'payload', type: 'msg' },
    Caption: { value: 'topic', type: 'msg' },
    caption: { value: 'topic', type: 'msg' },
  },
};

/** One entry of a parameter's list in the dialog: the value sent and what the list shows. */
export interface ParamChoice {
  value: string;
  label: string;
}

/**
 * A list for a parameter whose code list the spec does not show, offered beside free input of the
 * parameter's own type. The legacy SmsTyp: the spec names 1 and 18 (the types that use Sender); the other
 * codes are our documented reading (JobType positions, docs/assumptions.md), the same the length check uses.
 */
export const PARAM_CHOICES: Readonly<Record<string, Readonly<Record<string, readonly ParamChoice[]>>>> = {
  'smsgw-legacy-send-text': {
    SmsTyp: legacySmsTypeCodes().map(({ code, jobType }) => ({ value: code, label: `${code} ${jobType}` })),
  },
};

interface EditorParam {
  name: string;
  type: string;
  optional: boolean;
  values?: readonly string[];
  choices?: readonly ParamChoice[];
  doc?: string;
  default?: TypedValue;
}

function typeLabel(type: TypeRef): string {
  if (type.kind === 'list') return `${typeLabel(type.item)}[]`;
  return type.name;
}

/** The catalogue as the editor needs it: operation lists per node with parameter names, types and enums. */
export function editorCatalogue(
  catalogue: Catalogue = CATALOGUE,
): Record<string, { key: string; doc: string; params: EditorParam[] }[]> {
  const out: Record<string, { key: string; doc: string; params: EditorParam[] }[]> = {};
  const menus = catalogue === CATALOGUE ? NODE_OPERATIONS : nodeOperations(catalogue);
  for (const [nodeType, keys] of Object.entries(menus)) {
    out[nodeType] = keys.map((key) => {
      const op = operationOf(key, catalogue);
      return {
        key,
        doc: op.doc,
        params: userParams(op).map((p) => {
          const ep: EditorParam = { name: p.name, type: typeLabel(p.type), optional: !!p.optional };
          if (p.type.kind === 'enum') ep.values = p.allowed ?? catalogue.enums[p.type.name]?.values ?? [];
          if (p.doc) ep.doc = p.doc;
          const choices = PARAM_CHOICES[nodeType]?.[p.name];
          if (choices) ep.choices = choices;
          const dflt = PARAM_DEFAULTS[nodeType]?.[p.name];
          if (dflt) ep.default = dflt;
          return ep;
        }),
      };
    });
  }
  return out;
}
