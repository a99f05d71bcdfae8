import { strict as assert } from 'node:assert';
import { DEFAULT_NAMESPACES, DEFAULT_PATHS, OPERATIONS, enumType } from '../../../src/catalogue';
import type { OperationDef, ParamDef } from '../../../src/catalogue/types';
import { startEmulator, type RunningEmulator } from '../../../src/emulator';
import { FakeBackend } from './helpers/fake-backend';
import { http } from './helpers/http';
import { child, parse } from './helpers/xml';

// Every operation of the catalogue over every transport, with request text written here from asmx-wire.md.

const SOAP11 = 'http://schemas.xmlsoap.org/soap/envelope/';
const SOAP12 = 'http://www.w3.org/2003/05/soap-envelope';
const ENC11 = 'http://schemas.xmlsoap.org/soap/encoding/';
const ENC12 = 'http://www.w3.org/2003/05/soap-encoding';
const XSI = 'http://www.w3.org/2001/XMLSchema-instance';
const XSD = 'http://www.w3.org/2001/XMLSchema';

const nsOf = (op: OperationDef): string =>
  op.service === 'legacy' ? DEFAULT_NAMESPACES.legacy : DEFAULT_NAMESPACES.gateway;
const pathOf = (op: OperationDef): string => DEFAULT_PATHS[op.service];

/** The text sent for a scalar parameter, by XML type. */
function scalarText(p: ParamDef): string {
  if (p.credential === 'user') return 'demo';
  if (p.credential === 'password') return 'secret';
  if (p.type.kind === 'enum') return p.allowed?.[0] ?? (enumType(p.type.name).values[1] as string);
  if (p.type.kind !== 'primitive') throw new Error('not scalar');
  return {
    string: 'hello & bye',
    int: '3',
    double: '1.5',
    boolean: 'true',
    dateTime: '2026-11-22T10:00:00Z',
    base64Binary: 'AQID',
  }[p.type.name];
}

/** What the backend must receive for that text. */
function expectedValue(p: ParamDef): unknown {
  if (p.type.kind === 'list') return ['+4917000001', '+4917000002'];
  if (p.type.kind === 'primitive' && p.type.name === 'base64Binary') return Buffer.from([1, 2, 3]);
  const text = scalarText(p);
  if (p.type.kind === 'enum' || p.credential) return text;
  switch (p.type.kind === 'primitive' ? p.type.name : '') {
    case 'int':
      return 3;
    case 'double':
      return 1.5;
    case 'boolean':
      return true;
    case 'dateTime':
      return new Date(Date.UTC(2026, 10, 22, 10, 0, 0));
    default:
      return text;
  }
}

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

function literalParam(p: ParamDef): string {
  if (p.type.kind === 'list')
    return `<${p.name}><string>+4917000001</string><string>+4917000002</string></${p.name}>`;
  return `<${p.name}>${esc(scalarText(p))}</${p.name}>`;
}

function encodedParam(p: ParamDef, version: '1.1' | '1.2'): string {
  if (p.type.kind === 'list') {
    const attrs =
      version === '1.1'
        ? 'xsi:type="soapenc:Array" soapenc:arrayType="xsd:string[2]"'
        : 'soapenc:itemType="xsd:string" soapenc:arraySize="2"';
    return `<${p.name} ${attrs}><Item>+4917000001</Item><Item>+4917000002</Item></${p.name}>`;
  }
  const xsdType = p.type.kind === 'primitive' ? p.type.name : 'string';
  return `<${p.name} xsi:type="xsd:${xsdType}">${esc(scalarText(p))}</${p.name}>`;
}

function soapRequest(op: OperationDef, version: '1.1' | '1.2'): string {
  const env = version === '1.1' ? SOAP11 : SOAP12;
  const enc = version === '1.1' ? ENC11 : ENC12;
  const head = `<?xml version="1.0" encoding="utf-8"?>\n<soap:Envelope xmlns:soap="${env}" xmlns:xsi="${XSI}" xmlns:xsd="${XSD}" xmlns:soapenc="${enc}">\n  <soap:Body>\n`;
  const tail = `\n  </soap:Body>\n</soap:Envelope>\n`;
  if (op.style === 'rpc') {
    const params = op.params.map((p) => encodedParam(p, version)).join('\n      ');
    return `${head}    <tns:${op.name} xmlns:tns="${nsOf(op)}">\n      ${params}\n    </tns:${op.name}>${tail}`;
  }
  const params = op.params.map(literalParam).join('\n      ');
  return `${head}    <${op.name} xmlns="${nsOf(op)}">\n      ${params}\n    </${op.name}>${tail}`;
}

function formBody(op: OperationDef): string {
  const parts: string[] = [];
  for (const p of op.params) {
    if (p.type.kind === 'list') parts.push(`${p.name}=%2B4917000001`, `${p.name}=%2B4917000002`);
    else if (p.type.kind === 'primitive' && p.type.name === 'base64Binary')
      parts.push(`${p.name}=1`, `${p.name}=2`, `${p.name}=3`);
    else parts.push(`${p.name}=${encodeURIComponent(scalarText(p))}`);
  }
  return parts.join('&');
}

/** What the fake backend answers for a legacy operation called with the demo credentials. */
const legacyAnswer = (op: OperationDef): string => (op.name === 'QueryBalance2' ? '42.5' : 'OK 4711');

function assertParams(backend: FakeBackend, op: OperationDef): void {
  const call = backend.lastCall;
  assert.ok(call, 'backend was called');
  assert.equal(call.op.name, op.name);
  for (const p of op.params) assert.deepEqual(call.params[p.name], expectedValue(p), `${op.name}.${p.name}`);
}

describe('emulator wire: every operation over every transport', () => {
  let emu: RunningEmulator<FakeBackend>;
  const backend = new FakeBackend();
  before(async () => {
    emu = await startEmulator({ backend });
  });
  after(() => emu.close());

  for (const op of OPERATIONS) {
    describe(`${op.service} ${op.name} (${op.style})`, () => {
      for (const version of ['1.1', '1.2'] as const) {
        it(`SOAP ${version}`, async () => {
          const headers: Record<string, string> =
            version === '1.1'
              ? { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: `"${nsOf(op)}${op.name}"` }
              : { 'Content-Type': `application/soap+xml; charset=utf-8; action="${nsOf(op)}${op.name}"` };
          const res = await http(emu.url, 'POST', pathOf(op), headers, soapRequest(op, version));
          assert.equal(res.status, 200, res.body);
          assert.equal(
            res.headers['content-type'],
            version === '1.1' ? 'text/xml; charset=utf-8' : 'application/soap+xml; charset=utf-8',
          );
          assert.ok(
            res.body.startsWith('<?xml version="1.0" encoding="utf-8"?><soap:Envelope '),
            'declaration, then soap prefix',
          );
          assert.ok(!res.body.includes('\n'), 'one line');
          const root = parse(res.body);
          assert.equal(root.uri, version === '1.1' ? SOAP11 : SOAP12);
          assert.equal(root.attrs['xmlns:xsi'], XSI);
          assert.equal(root.attrs['xmlns:xsd'], XSD);
          const body = child(root, 'Body');
          const wrapper = body?.children[0];
          assert.equal(wrapper?.local, `${op.name}Response`);
          assert.equal(wrapper?.uri, nsOf(op));
          if (op.style === 'rpc') {
            assert.equal(wrapper?.name, `tns:${op.name}Response`);
            const result = child(wrapper, `${op.name}Result`);
            assert.equal(result?.uri, '', 'RPC accessors are unqualified');
            assert.equal(result?.attrs['xsi:type'], 'xsd:string');
            if (version === '1.1') {
              assert.equal(body?.attrs['soap:encodingStyle'], ENC11);
            } else {
              assert.equal(body?.attrs['soap:encodingStyle'], undefined);
              const first = wrapper?.children[0];
              assert.equal(first?.name, 'rpc:result');
              assert.equal(first?.text, `${op.name}Result`);
            }
            assert.equal(result?.text, legacyAnswer(op));
          } else {
            assert.equal(wrapper?.attrs['xmlns'], nsOf(op));
            const result = child(wrapper, `${op.name}Result`);
            assert.equal(result?.uri, nsOf(op));
            if (op.service !== 'legacy') {
              // A list of envelopes (SendMobileOrFixlineSMS): the first one carries the status.
              const t = op.result.type;
              const first = t.kind === 'list' ? child(result, t.itemElement) : result;
              assert.equal(child(first, 'StatusCode')?.text, 'Ok');
            }
          }
          assertParams(backend, op);
          assert.equal(backend.lastCall?.ctx.transport, version === '1.1' ? 'soap11' : 'soap12');
        });
      }

      for (const method of ['GET', 'POST'] as const) {
        it(`HTTP ${method}`, async () => {
          const form = formBody(op);
          const res =
            method === 'GET'
              ? await http(emu.url, 'GET', `${pathOf(op)}/${op.name}?${form}`)
              : await http(
                  emu.url,
                  'POST',
                  `${pathOf(op)}/${op.name}`,
                  { 'Content-Type': 'application/x-www-form-urlencoded' },
                  form,
                );
          assert.equal(res.status, 200, res.body);
          assert.equal(res.headers['content-type'], 'text/xml; charset=utf-8');
          assert.ok(
            res.body.startsWith('<?xml version="1.0" encoding="utf-8"?>\r\n<'),
            'declaration then CRLF',
          );
          const root = parse(res.body);
          const bare = op.service === 'legacy' ? 'string' : op.result.bare;
          assert.equal(root.local, bare);
          assert.equal(root.uri, nsOf(op));
          if (op.service === 'legacy') {
            assert.equal(root.text, legacyAnswer(op));
          } else {
            assert.equal(root.attrs['xmlns:xsi'], XSI);
            assert.ok(res.body.includes('\r\n  <'), 'indented two spaces with CRLF');
          }
          assertParams(backend, op);
          assert.equal(backend.lastCall?.ctx.transport, method.toLowerCase());
        });
      }
    });
  }
});
