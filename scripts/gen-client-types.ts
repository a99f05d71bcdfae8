/**
 * Generates src/client/types.generated.ts (parameter, result and method types of every operation) from the
 * catalogue. `npm run generate` writes it (with every other generated output); test/scripts/generate.test.ts
 * fails when it is stale.
 */
import { join } from 'node:path';
import * as prettier from 'prettier';
import { CATALOGUE, type Catalogue } from '../src/catalogue';
import type { OperationDef, ParamDef, ServiceName, TypeRef } from '../src/catalogue/types';
import { methodName } from '../src/client/names';

export const GENERATED_TYPES_PATH = join(__dirname, '..', 'src', 'client', 'types.generated.ts');

const SERVICES: readonly ServiceName[] = ['information', 'send', 'customer', 'legacy'];
const pascal = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
const quoteUnion = (values: readonly string[]): string => values.map((v) => `'${v}'`).join(' | ');
const doc = (text: string | undefined, indent = ''): string => (text ? `${indent}/** ${text} */\n` : '');

/** TS type of a decoded value. */
function outType(t: TypeRef): string {
  switch (t.kind) {
    case 'primitive':
      return {
        string: 'string',
        int: 'number',
        double: 'number',
        boolean: 'boolean',
        dateTime: 'Date | null',
        base64Binary: 'Uint8Array',
      }[t.name];
    case 'enum':
      return t.name;
    case 'complex':
      return t.name;
    case 'list':
      return `${wrap(outType(t.item))}[]`;
  }
}

const wrap = (s: string): string => (s.includes(' ') ? `(${s})` : s);

/** Fields that XmlSerializer omits when null: strings, bytes, objects and lists. */
const mayBeAbsent = (t: TypeRef): boolean =>
  t.kind === 'complex' ||
  t.kind === 'list' ||
  (t.kind === 'primitive' && (t.name === 'string' || t.name === 'base64Binary'));

/** TS type of a parameter as callers may pass it. */
function inType(p: ParamDef): string {
  const t = p.type;
  switch (t.kind) {
    case 'primitive':
      switch (t.name) {
        case 'string':
          return /date/i.test(p.name) ? 'string | Date' : 'string';
        case 'int':
        case 'double':
          return 'number';
        case 'boolean':
          return 'boolean';
        case 'dateTime':
          return 'DateInput';
        case 'base64Binary':
          return 'BytesInput';
      }
      break;
    case 'enum':
      return p.allowed ? quoteUnion(p.allowed) : t.name;
    case 'list':
      return 'string | readonly string[]';
  }
  throw new Error(`no input type for ${p.name}`);
}

const paramsName = (op: OperationDef): string => `${pascal(op.service)}${pascal(methodName(op))}Params`;

function paramsInterface(op: OperationDef): string {
  const lines = op.params.map((p) => {
    const optional = p.optional || p.credential !== undefined;
    const note = p.credential ? `Defaults to the client's ${p.credential}.` : p.doc;
    return `${doc(note, '  ')}  ${p.name}${optional ? '?' : ''}: ${inType(p)};`;
  });
  return `/** Parameters of ${op.service} ${op.name}. */\nexport interface ${paramsName(op)} {\n${lines.join('\n')}\n}\n`;
}

const hasRequired = (op: OperationDef): boolean => op.params.some((p) => !p.optional && !p.credential);

/** Value type of a typed envelope result (`SOAPResponseOfX` → its Value field). */
function valueOf(op: OperationDef, catalogue: Catalogue): string {
  const t = op.result.type;
  if (t.kind === 'list' && t.item.kind === 'complex') {
    return `${valueOfEnvelope(t.item.name, catalogue)}[]`;
  }
  if (t.kind !== 'complex') throw new Error(`unexpected result of ${op.name}`);
  return valueOfEnvelope(t.name, catalogue);
}

function valueOfEnvelope(name: string, catalogue: Catalogue): string {
  const value = catalogue.complexTypes[name]?.fields.find((f) => f.name === 'Value');
  if (!value) throw new Error(`${name} is not an envelope`);
  return outType(value.type);
}

const LEGACY_RECORDS: Record<string, string> = {
  receivedSms2: 'ReceivedSms2Record',
  recivedSms2: 'RecivedSms2Record',
  newReceivedSms2: 'NewReceivedSms2Record',
  jobs: 'LegacyJobRecord',
};

function legacyTypes(op: OperationDef): { result: string; value: string } {
  const kind = op.result.legacy ?? '';
  const ok =
    kind === 'send'
      ? 'LegacySendResult'
      : kind === 'balance'
        ? 'LegacyBalanceResult'
        : `LegacyRecordsResult<${LEGACY_RECORDS[kind] ?? 'never'}>`;
  return { result: `${ok} | LegacyErrorResult`, value: kind === 'send' ? `Queued<${ok}>` : ok };
}

/** [result of call(), resolved value of the typed method]. */
function resultTypes(op: OperationDef, catalogue: Catalogue): { result: string; value: string } {
  if (op.service === 'legacy') return legacyTypes(op);
  const t = op.result.type;
  const isList = t.kind === 'list';
  const envelope = isList
    ? t.item.kind === 'complex'
      ? t.item.name
      : ''
    : t.kind === 'complex'
      ? t.name
      : '';
  let value = isList ? valueOfEnvelope(envelope, catalogue) : valueOf(op, catalogue);
  if (op.sends) value = `Queued<${value}>`;
  return { result: isList ? `${envelope}[]` : envelope, value: isList ? `${value}[]` : value };
}

export function generateClientTypesSource(catalogue: Catalogue = CATALOGUE): string {
  let out =
    '// Generated by scripts/gen-client-types.ts from src/catalogue: do not edit.\n' +
    '// Run `npm run generate` after changing the catalogue.\n' +
    "import type { CallOptions } from './options';\n" +
    'import type {\n  BytesInput, DateInput, LegacyBalanceResult, LegacyErrorResult, LegacyJobRecord, LegacyRecordsResult,\n' +
    "  LegacySendResult, NewReceivedSms2Record, Queued, ReceivedSms2Record, RecivedSms2Record,\n} from './value-types';\n\n";

  out += '// ---- enumerations\n\n';
  for (const e of Object.values(catalogue.enums)) {
    const union = quoteUnion(e.values) + (e.open ? ' | (string & {})' : '');
    out += `${doc(e.open ? 'Further values exist; unknown names are kept as they arrive.' : undefined)}export type ${e.name} = ${union};\n`;
  }

  out += '\n// ---- complex types (decoded results)\n\n';
  for (const c of Object.values(catalogue.complexTypes)) {
    const fields = c.fields.map((f) => `  ${f.name}${mayBeAbsent(f.type) ? '?' : ''}: ${outType(f.type)};`);
    out += `export interface ${c.name} {\n${fields.join('\n')}\n}\n\n`;
  }

  out += '// ---- parameters\n\n';
  for (const op of catalogue.operations) out += paramsInterface(op) + '\n';

  out += '// ---- operation map: params, result of call(), value of the typed method\n\n';
  out += 'export interface OperationTypes {\n';
  for (const s of SERVICES) {
    out += `  ${s}: {\n`;
    for (const op of catalogue.of(s)) {
      const r = resultTypes(op, catalogue);
      out += `    ${op.name}: { params: ${paramsName(op)}; result: ${r.result}; value: ${r.value} };\n`;
    }
    out += '  };\n';
  }
  out += '}\n\n';

  out += '// ---- typed methods per service\n\n';
  for (const s of SERVICES) {
    out += `/** Typed methods of the ${s} service: each resolves with the Value and rejects with a GatewayError. */\n`;
    out += `export interface ${pascal(s)}Methods {\n`;
    for (const op of catalogue.of(s)) {
      const r = resultTypes(op, catalogue);
      const opt = hasRequired(op) ? '' : '?';
      out += `${doc(`${op.name}: ${op.doc}`, '  ')}  ${methodName(op)}(params${opt}: ${paramsName(op)}, options?: CallOptions): Promise<${r.value}>;\n`;
    }
    out += '}\n\n';
  }
  return out;
}

/** The file's text, formatted as the repository formats TypeScript. */
export async function generateClientTypes(catalogue: Catalogue = CATALOGUE): Promise<string> {
  const config = (await prettier.resolveConfig(GENERATED_TYPES_PATH)) ?? {};
  return prettier.format(generateClientTypesSource(catalogue), { ...config, filepath: GENERATED_TYPES_PATH });
}
