import assert from 'node:assert/strict';
import { COMPLEX_TYPES, ENUMS, OPERATIONS } from '../../src/catalogue';
import type { OperationDef, TypeRef } from '../../src/catalogue/types';
import { GatewayClient, methodName, type GatewayWarning, type Transport } from '../../src/client';
import { GatewayError } from '../../src/errors';
import { Stub, reply } from './stub';

const NS = 'urn:test';
const SOAP11 = 'http://schemas.xmlsoap.org/soap/envelope/';

/**
 * What XmlSerializer writes for a value of this type that nobody set: value types their default (`0`, `false`,
 * `0001-01-01T00:00:00`, the enum's first member), a class its value-type fields, a list an empty element;
 * null references (strings, byte arrays, nested classes) are left out.
 */
function defaultXml(name: string, type: TypeRef): string {
  switch (type.kind) {
    case 'primitive':
      if (type.name === 'int' || type.name === 'double') return `<${name}>0</${name}>`;
      if (type.name === 'boolean') return `<${name}>false</${name}>`;
      if (type.name === 'dateTime') return `<${name}>0001-01-01T00:00:00</${name}>`;
      return '';
    case 'enum':
      return `<${name}>${ENUMS[type.name]!.values[0]!}</${name}>`;
    case 'list':
      return `<${name} />`;
    case 'complex': {
      const inner = COMPLEX_TYPES[type.name]!.fields.filter(
        (f) => f.type.kind !== 'complex' && f.type.kind !== 'list',
      )
        .map((f) => defaultXml(f.name, f.type))
        .join('');
      return inner ? `<${name}>${inner}</${name}>` : `<${name} />`;
    }
  }
}

type Form = 'no Value' | 'default Value' | 'empty Value';

/** The envelope(s) of a refused login: StatusCode InvalidUser with the Value in the given form. */
function refused(op: OperationDef, form: Form): string {
  const one = (envelopeType: string): string => {
    const value = COMPLEX_TYPES[envelopeType]!.fields.find((f) => f.name === 'Value')!.type;
    const v = form === 'no Value' ? '' : form === 'empty Value' ? '<Value />' : defaultXml('Value', value);
    return `<StatusCode>InvalidUser</StatusCode>${v}`;
  };
  const t = op.result.type;
  if (t.kind === 'list' && t.item.kind === 'complex')
    return `<${t.itemElement}>${one(t.item.name)}</${t.itemElement}>`;
  if (t.kind === 'complex') return one(t.name);
  throw new Error(`unexpected result type of ${op.name}`);
}

function answer(op: OperationDef, transport: Transport, form: Form): string {
  const inner = refused(op, form);
  if (transport === 'get')
    return `<?xml version="1.0" encoding="utf-8"?><${op.result.bare} xmlns="${NS}">${inner}</${op.result.bare}>`;
  return (
    `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${SOAP11}"><soap:Body>` +
    `<${op.name}Response xmlns="${NS}"><${op.name}Result>${inner}</${op.name}Result></${op.name}Response>` +
    `</soap:Body></soap:Envelope>`
  );
}

/** Parameters the client accepts for `op` (the stub does not look at them). */
function params(op: OperationDef): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const p of op.params) {
    if (p.credential || p.optional) continue;
    const t = p.type;
    out[p.name] =
      t.kind === 'list'
        ? ['+4917012345678']
        : t.kind === 'enum'
          ? (p.allowed?.[0] ?? ENUMS[t.name]!.values[0])
          : t.kind === 'primitive'
            ? {
                int: 1,
                double: 1,
                boolean: false,
                dateTime: null,
                base64Binary: Buffer.from('x'),
                string: '+4917012345678',
              }[t.name]
            : undefined;
  }
  return out;
}

// A typed answer with a StatusCode other than Ok may carry no Value, or the Value XmlSerializer writes for a
// value nobody set (0, empty elements): the typed methods must give AUTH with the status in every form.
describe('client: a refused login with or without a Value', () => {
  let stub: Stub;
  before(async () => {
    stub = await new Stub().start();
  });
  after(() => stub.stop());

  const typed = OPERATIONS.filter((op) => op.service !== 'legacy');
  for (const transport of ['soap11', 'get'] as Transport[]) {
    for (const form of ['no Value', 'default Value', 'empty Value'] as Form[]) {
      it(`${transport}, ${form}: every typed operation (${typed.length}) fails with AUTH InvalidUser`, async () => {
        const warnings: GatewayWarning[] = [];
        const client = new GatewayClient({
          baseUrl: stub.url,
          user: 'u',
          password: 'secret-pw',
          transport,
          gatewayNamespace: NS,
          onWarning: (w) => warnings.push(w),
        });
        try {
          for (const op of typed) {
            stub.handler = (_r, res) =>
              reply(res, 200, 'text/xml; charset=utf-8', answer(op, transport, form));
            const method = (
              client[op.service] as unknown as Record<string, (p: unknown) => Promise<unknown>>
            )[methodName(op)]!;
            const err = await method(params(op)).then(
              () => undefined,
              (e: unknown) => e,
            );
            assert.ok(err instanceof GatewayError, `${op.name}: ${String(err)}`);
            assert.equal(err.code, 'AUTH', `${op.name}: ${err.message}`);
            assert.equal(err.status, 'InvalidUser', op.name);
            const raw = (await client.call(op.service, op.name as never, params(op) as never)) as unknown;
            const first = (Array.isArray(raw) ? raw[0] : raw) as { StatusCode: string };
            assert.equal(first.StatusCode, 'InvalidUser', op.name);
          }
          // What XmlSerializer writes reads without a warning; an empty element where a number belongs warns.
          if (form !== 'empty Value') assert.deepEqual(warnings, []);
          else
            assert.ok(
              warnings.every((w) => w.kind === 'value' && w.field.endsWith('.Value')),
              JSON.stringify(warnings),
            );
        } finally {
          await client.close();
        }
      });
    }
  }
});
