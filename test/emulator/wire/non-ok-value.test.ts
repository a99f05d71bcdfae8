import { strict as assert } from 'node:assert';
import { OPERATIONS, complexType, enumType } from '../../../src/catalogue';
import type { OperationDef, TypeRef } from '../../../src/catalogue/types';
import { startEmulator, type RunningEmulator } from '../../../src/emulator';
import { FakeBackend } from './helpers/fake-backend';
import { http } from './helpers/http';

// A refused login still returns the envelope object the service made: XmlSerializer writes its value-type
// Value with its default (a double: 0) and omits a null reference Value (lists, classes, strings, bytes),
// asmx-wire.md §3.2 and §8.2.

const GW = 'https://gateway.smsgw.example/';
const S11 = 'http://schemas.xmlsoap.org/soap/envelope/';
const typed = OPERATIONS.filter((op) => op.service !== 'legacy');
const PATHS: Record<string, string> = {
  information: '/gateway/Information.asmx',
  send: '/gateway/Send.asmx',
  customer: '/gateway/Customer.asmx',
};

/** What the result element must be, from the catalogue alone. */
function expectedResult(op: OperationDef, status: string): string {
  const t = op.result.type;
  if (t.kind === 'list') {
    // SendMobileOrFixlineSMS: one envelope carrying the status; its CreateJobInfo Value is a class, omitted.
    return `<${op.name}Result><${t.itemElement}><StatusCode>${status}</StatusCode></${t.itemElement}></${op.name}Result>`;
  }
  const value = complexType((t as { name: string }).name).fields.find((f) => f.name === 'Value')!.type;
  const text = defaultText(value);
  const written = text === undefined ? '' : `<Value>${text}</Value>`;
  return `<${op.name}Result><StatusCode>${status}</StatusCode>${written}</${op.name}Result>`;
}

/** The text XmlSerializer writes for a value type nobody set; undefined for a reference type (omitted). */
function defaultText(type: TypeRef): string | undefined {
  if (type.kind === 'enum') return enumType(type.name).values[0];
  if (type.kind !== 'primitive') return undefined;
  switch (type.name) {
    case 'int':
    case 'double':
      return '0';
    case 'boolean':
      return 'false';
    case 'dateTime':
      return '0001-01-01T00:00:00';
    case 'string':
    case 'base64Binary':
      return undefined;
  }
}

describe('emulator wire: non-Ok typed answers are written as XmlSerializer writes them', () => {
  let emu: RunningEmulator;
  beforeEach(async () => {
    emu = await startEmulator({ console: false });
  });
  afterEach(() => emu.close());

  const soap = async (op: OperationDef, password: string): Promise<string> => {
    const body = `<soap:Envelope xmlns:soap="${S11}"><soap:Body><${op.name} xmlns="${GW}"><User>demo</User><Password>${password}</Password></${op.name}></soap:Body></soap:Envelope>`;
    const res = await http(
      emu.url,
      'POST',
      PATHS[op.service] as string,
      { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: `"${GW}${op.name}"` },
      body,
    );
    assert.equal(res.status, 200, res.body);
    return res.body;
  };

  const everyOperation = async (password: string, status: string): Promise<void> => {
    for (const op of typed) {
      const body = await soap(op, password);
      const wrapper = `<${op.name}Response xmlns="${GW}">${expectedResult(op, status)}</${op.name}Response>`;
      assert.ok(body.includes(wrapper), `${op.name}: ${body}`);
    }
    const get = await http(
      emu.url,
      'GET',
      `/gateway/Information.asmx/QueryAccountBalance?User=demo&Password=${password}`,
    );
    assert.equal(
      get.body,
      `<?xml version="1.0" encoding="utf-8"?>\r\n<SOAPResponseOfDouble xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns="${GW}">\r\n  <StatusCode>${status}</StatusCode>\r\n  <Value>0</Value>\r\n</SOAPResponseOfDouble>`,
    );
  };

  it('InvalidUser: a value-type Value with its default (the double: 0), no Value for lists and classes', async () => {
    await everyOperation('wrong', 'InvalidUser');
  });

  it('AccountLocked and IPLock alike', async () => {
    emu.control.lockAccount('demo', true);
    await everyOperation('demo-password', 'AccountLocked');
    emu.control.lockAccount('demo', false);
    emu.control.setIpAllowList('demo', ['10.9.8.7']);
    await everyOperation('demo-password', 'IPLock');
  });

  it('value-type fields a backend left unset are written with their defaults, SOAP and GET', async () => {
    const backend = new FakeBackend();
    backend.resultOverride = () => ({ StatusCode: 'Ok', Value: { Status: 'NoTextFound' } });
    const fake = await startEmulator({ backend, console: false });
    try {
      const body = `<soap:Envelope xmlns:soap="${S11}"><soap:Body><SendSMS xmlns="${GW}"><User>demo</User><Password>secret</Password></SendSMS></soap:Body></soap:Envelope>`;
      const res = await http(
        fake.url,
        'POST',
        '/gateway/Send.asmx',
        { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: `"${GW}SendSMS"` },
        body,
      );
      assert.ok(
        res.body.includes(
          '<SendSMSResult><StatusCode>Ok</StatusCode><Value><Status>NoTextFound</Status><JobId>0</JobId></Value></SendSMSResult>',
        ),
        res.body,
      );
      const get = await http(
        fake.url,
        'GET',
        '/gateway/Send.asmx/SendHLR?User=demo&Password=secret&Caption=c&Recipient=1',
      );
      assert.ok(
        get.body.includes(
          '\r\n  <Value>\r\n    <Status>NoTextFound</Status>\r\n    <JobId>0</JobId>\r\n  </Value>',
        ),
        get.body,
      );
    } finally {
      await fake.close();
    }
  });
});
