import assert from 'node:assert/strict';
import { DEFAULT_NAMESPACES, DEFAULT_PATHS, OPERATIONS, enumType } from '../../src/catalogue';
import type { OperationDef, ParamDef, TypeRef } from '../../src/catalogue/types';
import { GatewayError } from '../../src/errors';
import { buildRequest, type Transport } from '../../src/soap/request';
import { parseDateTime, parseDouble, parseInt32 } from '../../src/soap/values';
import { parse, type Node } from '../emulator/wire/helpers/xml';

// ASMX reads an int, double, boolean, dateTime or enum parameter with ReadElementString, xsi:nil or not: a nil or
// empty value is a Client fault at the gateway. The request builder must never write one, for any
// operation of the catalogue, over any transport, whatever a flow passes (null, undefined, '', blanks).

const VALUE_TYPES = new Set(['int', 'double', 'boolean', 'dateTime']);
const isValueType = (t: TypeRef): boolean =>
  t.kind === 'enum' || (t.kind === 'primitive' && VALUE_TYPES.has(t.name));

function validValue(p: ParamDef): unknown {
  const t = p.type;
  if (t.kind === 'list') return ['+4917000001'];
  if (t.kind === 'enum') return p.allowed?.[0] ?? enumType(t.name).values[0];
  if (t.kind !== 'primitive') throw new Error(`no sample for ${p.name}`);
  switch (t.name) {
    case 'int':
      return 1;
    case 'double':
      return 1.5;
    case 'boolean':
      return true;
    case 'dateTime':
      return new Date(Date.UTC(2026, 10, 22, 10, 0, 0));
    case 'base64Binary':
      return new Uint8Array([1, 2]);
    default:
      return 'x';
  }
}

/** The text must be one the gateway's reader takes for this type. */
function assertReadable(p: ParamDef, text: string, where: string): void {
  const t = p.type;
  assert.notEqual(text.trim(), '', `${where}: ${p.name} is empty`);
  if (t.kind === 'enum') {
    assert.ok(enumType(t.name).values.includes(text), `${where}: ${p.name}=${text} is no member`);
    return;
  }
  if (t.kind !== 'primitive') return;
  if (t.name === 'int') parseInt32(text);
  else if (t.name === 'double') parseDouble(text);
  else if (t.name === 'boolean') assert.match(text, /^(true|false)$/, `${where}: ${p.name}`);
  else if (t.name === 'dateTime') parseDateTime(text);
}

const pathOf = (op: OperationDef): string => DEFAULT_PATHS[op.service];
const nsOf = (op: OperationDef): string =>
  op.service === 'legacy' ? DEFAULT_NAMESPACES.legacy : DEFAULT_NAMESPACES.gateway;

function wrapper(body: string): Node {
  const env = parse(body);
  const b = env.children.find((c) => c.local === 'Body');
  const w = b?.children[0];
  assert.ok(w, 'a wrapper element');
  return w;
}

/** Each value-type parameter in the built request: present and readable, or absent (optional, never nil). */
function check(op: OperationDef, transport: Transport, params: Record<string, unknown>, where: string): void {
  let req;
  try {
    req = buildRequest(op, params, { transport, namespace: nsOf(op), path: pathOf(op) });
  } catch (e) {
    assert.ok(e instanceof GatewayError && e.code === 'VALIDATION', `${where}: ${String(e)}`);
    return; // refused before anything is sent: fine
  }
  if (transport === 'soap11' || transport === 'soap12') {
    const body = req.body ?? '';
    assert.doesNotMatch(body, /nil|xsi:null/, `${where}: no nil anywhere`);
    const w = wrapper(body);
    for (const p of op.params.filter((q) => isValueType(q.type))) {
      const el = w.children.find((c) => c.local === p.name);
      if (!el) {
        assert.ok(p.optional, `${where}: required ${p.name} left out`);
        continue;
      }
      assertReadable(p, el.text, where);
    }
  } else {
    const query = transport === 'get' ? req.path.slice(req.path.indexOf('?') + 1) : (req.body ?? '');
    const form = new URLSearchParams(query);
    for (const p of op.params.filter((q) => isValueType(q.type))) {
      const values = form.getAll(p.name);
      assert.equal(values.length, 1, `${where}: GET/POST sends every key once (${p.name})`);
      assertReadable(p, values[0] as string, where);
    }
  }
}

describe('soap/request: never a nil or empty value type', () => {
  const transports: Transport[] = ['soap11', 'soap12', 'get', 'post'];
  const withValueTypes = OPERATIONS.filter((op) => op.params.some((p) => isValueType(p.type)));

  it('the catalogue has value-type parameters to check (int, dateTime, enum)', () => {
    const kinds = new Set<string>(
      withValueTypes.flatMap((op) =>
        op.params
          .filter((p) => isValueType(p.type))
          .map((p) => (p.type.kind === 'primitive' ? p.type.name : p.type.kind)),
      ),
    );
    for (const k of ['int', 'dateTime', 'enum']) assert.ok(kinds.has(k), k);
  });

  for (const op of withValueTypes) {
    it(`${op.service}/${op.name}: each value-type parameter null, undefined, '' or blank`, () => {
      const valid = Object.fromEntries(op.params.map((p) => [p.name, validValue(p)]));
      for (const transport of transports) {
        check(op, transport, valid, `${op.name} ${transport} valid`);
        for (const p of op.params.filter((q) => isValueType(q.type))) {
          for (const v of [null, undefined, '', '  ']) {
            check(
              op,
              transport,
              { ...valid, [p.name]: v },
              `${op.name} ${transport} ${p.name}=${JSON.stringify(v)}`,
            );
          }
        }
      }
    });
  }
});
