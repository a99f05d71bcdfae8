import { strict as assert } from 'node:assert';
import * as soap from 'soap';
import { DEFAULT_PATHS, OPERATIONS } from '../../../src/catalogue';
import { startEmulator, type RunningEmulator } from '../../../src/emulator';
import { http } from './helpers/http';
import { child, parse } from './helpers/xml';

// The generated WSDL, checked by shape and by a generic SOAP client (node-soap) against the real state.

const WSDL = 'http://schemas.xmlsoap.org/wsdl/';

interface SoapResult {
  [key: string]: unknown;
}
type SoapMethod = (args: Record<string, unknown>) => Promise<[SoapResult, string]>;

describe('emulator wire: WSDL', () => {
  let emu: RunningEmulator;
  before(async () => {
    emu = await startEmulator({
      user: 'demo',
      password: 'pw-123',
      balance: 50,
      timing: { processingMs: 0, deliveryMs: 0 },
    });
  });
  after(() => emu.close());

  it('each service: ?WSDL in any case, every operation bound for SOAP 1.1, 1.2, GET, POST, address from Host', async () => {
    for (const [service, p] of Object.entries(DEFAULT_PATHS)) {
      const res = await http(emu.url, 'GET', `${p}?wSdL`, { Host: 'sandbox.example:8080' });
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-type'], 'text/xml; charset=utf-8');
      const root = parse(res.body);
      assert.equal(root.uri, WSDL);
      assert.equal(root.local, 'definitions');
      const bindings = root.children.filter((c) => c.local === 'binding');
      assert.deepEqual(
        bindings.map((b) => b.attrs.name?.replace(/^[A-Za-z]+?(Soap12|Soap|HttpGet|HttpPost)$/, '$1')),
        ['Soap', 'Soap12', 'HttpGet', 'HttpPost'],
      );
      const ops = OPERATIONS.filter((o) => o.service === service).map((o) => o.name);
      for (const b of bindings)
        assert.deepEqual(
          b.children.filter((c) => c.local === 'operation').map((c) => c.attrs.name),
          ops,
        );
      const addresses = child(root, 'service')?.children.map((port) => port.children[0]?.attrs.location);
      assert.deepEqual(addresses, Array(4).fill(`http://sandbox.example:8080${p}`));
      const schemas = child(root, 'types')?.children ?? [];
      assert.equal(schemas[0]?.attrs.elementFormDefault, 'qualified');
    }
  });

  it('legacy WSDL: RPC operations are style="rpc" with encoded bodies and section-5 array types', async () => {
    const res = await http(emu.url, 'GET', '/soap/send.asmx?WSDL');
    assert.match(
      res.body,
      /<soap:operation soapAction="https:\/\/gateway.smsgw.example\/soap\/SendSMS" style="rpc" \/>/,
    );
    assert.match(
      res.body,
      /<soap:body use="encoded" namespace="https:\/\/gateway.smsgw.example\/soap\/" encodingStyle="http:\/\/schemas.xmlsoap.org\/soap\/encoding\/" \/>/,
    );
    assert.match(res.body, /<s:attribute wsdl:arrayType="s:string\[\]" ref="soapenc:arrayType" \/>/);
    assert.match(res.body, /<wsdl:part name="Recipient" type="s1:ArrayOfString" \/>/);
  });

  it('typed WSDL declares enums, complex types and ArrayOf types', async () => {
    const res = await http(emu.url, 'GET', '/gateway/Information.asmx?WSDL');
    assert.match(res.body, /<s:simpleType name="JobStatus">/);
    assert.match(
      res.body,
      /<s:complexType name="ArrayOfDbSMSJob">\s*<s:sequence>\s*<s:element minOccurs="0" maxOccurs="unbounded" name="dbSMSJob" nillable="true" type="tns:dbSMSJob" \/>/,
    );
    assert.match(res.body, /<s:complexType name="SOAPResponseOfDouble">/);
  });

  it('GET on the bare .asmx is a help page', async () => {
    const res = await http(emu.url, 'GET', '/gateway/Send.asmx');
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.match(res.body, /SendMobileOrFixlineSMS/);
  });

  it('GET <P>?op=X shows sample requests of that operation for every protocol', async () => {
    const res = await http(emu.url, 'GET', '/soap/send.asmx?op=SendSMS');
    assert.equal(res.status, 200);
    assert.match(res.body, /SOAPAction: &quot;https:\/\/gateway.smsgw.example\/soap\/SendSMS&quot;/);
    assert.match(res.body, /soapenc:arrayType=&quot;xsd:string\[2\]&quot;/);
    assert.match(res.body, /GET \/soap\/send.asmx\/SendSMS\?User=string&amp;Password=string/);
    assert.match(res.body, /Content-Type: application\/x-www-form-urlencoded/);
    const unknown = await http(emu.url, 'GET', '/soap/send.asmx?op=%zz');
    assert.equal(unknown.status, 200, 'falls back to the service page');
  });

  it('node-soap loads the WSDL and calls SendSMS, QueryJobs and QueryAccountBalance', async () => {
    const send = await soap.createClientAsync(`${emu.url}/gateway/Send.asmx?WSDL`);
    const sendSms = (send as unknown as Record<string, SoapMethod>).SendSMSAsync as SoapMethod;
    const [sent] = await sendSms({
      User: 'demo',
      Password: 'pw-123',
      Caption: 'node-soap',
      Sender: 'Tester',
      Recipient: { string: ['+4917012345678', '+4917112345678'] },
      SMSText: 'hello from node-soap',
      SmsTyp: 'Standard',
      SendDate: '0001-01-01T00:00:00',
    });
    const created = sent.SendSMSResult as { StatusCode: string; Value: { Status: string; JobId: number } };
    assert.equal(created.StatusCode, 'Ok');
    assert.equal(created.Value.Status, 'Ok');
    assert.ok(created.Value.JobId > 0);

    const info = await soap.createClientAsync(`${emu.url}/gateway/Information.asmx?wsdl`);
    const methods = info as unknown as Record<string, SoapMethod>;
    const [jobs] = await (methods.QueryJobsAsync as SoapMethod)({
      User: 'demo',
      Password: 'pw-123',
      StartDate: '2000-01-01T00:00:00Z',
      EndDate: '2100-01-01T00:00:00Z',
    });
    const list = jobs.QueryJobsResult as {
      StatusCode: string;
      Value: { dbSMSJob: { Id: number; Caption: string } | Array<{ Id: number; Caption: string }> };
    };
    assert.equal(list.StatusCode, 'Ok');
    const items = Array.isArray(list.Value.dbSMSJob) ? list.Value.dbSMSJob : [list.Value.dbSMSJob];
    assert.ok(
      items.some((j) => j.Id === created.Value.JobId && j.Caption === 'node-soap'),
      JSON.stringify(items),
    );

    const [bal] = await (methods.QueryAccountBalanceAsync as SoapMethod)({
      User: 'demo',
      Password: 'pw-123',
    });
    const balance = bal.QueryAccountBalanceResult as { StatusCode: string; Value: number };
    assert.equal(balance.StatusCode, 'Ok');
    assert.equal(typeof balance.Value, 'number');
    assert.ok(balance.Value <= 50);

    const [bad] = await (methods.QueryAccountBalanceAsync as SoapMethod)({ User: 'demo', Password: 'wrong' });
    assert.equal((bad.QueryAccountBalanceResult as { StatusCode: string }).StatusCode, 'InvalidUser');
  });

  it('node-soap calls an RPC/encoded legacy operation', async () => {
    const legacy = await soap.createClientAsync(`${emu.url}/soap/send.asmx?WSDL`);
    const [res] = await ((legacy as unknown as Record<string, SoapMethod>).QueryBalance2Async as SoapMethod)({
      User: 'demo',
      Password: 'pw-123',
    });
    const result = res.QueryBalance2Result as { $value?: string } | string;
    const text = typeof result === 'string' ? result : result.$value;
    assert.match(String(text), /^\d/);
  });
});
