import { strict as assert } from 'node:assert';
import { CATALOGUE, OPERATIONS, t } from '../../../src/catalogue';
import type { OperationDef } from '../../../src/catalogue/types';
import { writeSoapResponse } from '../../../src/emulator/wire/responses';
import { generateWsdl } from '../../../src/emulator/wire/wsdl';
import { child, parse, type Node } from './helpers/xml';

// RPC/encoded results beyond strings (no catalogue operation has one today; a new entry must just work).

const NS = 'urn:test/';
const base = OPERATIONS.find((o) => o.name === 'QueryBalance2') as OperationDef;
const op: OperationDef = {
  ...base,
  name: 'GetInfo',
  result: { type: t.complex('SMSJobInfo'), bare: 'SMSJobInfo' },
};
const value = {
  Job: { Id: 5, Caption: 'c', Status: 'Erledigt', SendDate: null },
  Report: [
    { Id: 1, Recipient: '+491', Status: 'delivered' },
    { Id: 2, Recipient: '+492', Status: 'failed' },
  ],
  Log: [],
  Status: 'Ok',
};

const all = (n: Node): Node[] => [n, ...n.children.flatMap(all)];

describe('emulator wire: RPC/encoded complex results', () => {
  it('SOAP 1.1: href/id multi-refs after the wrapper, in order of first reference, soapenc:Array with arrayType', () => {
    const root = parse(writeSoapResponse(op, NS, '1.1', value, CATALOGUE));
    const body = child(root, 'Body') as Node;
    const [wrapper, ...refs] = body.children;
    assert.equal(wrapper?.name, 'tns:GetInfoResponse');
    assert.equal(child(wrapper, 'GetInfoResult')?.attrs.href, '#id1');
    assert.deepEqual(
      refs.map((r) => [r.name, r.attrs.id]),
      [
        ['types:SMSJobInfo', 'id1'],
        ['types:dbSMSJob', 'id2'],
        ['soapenc:Array', 'id3'],
        ['types:SMSReport', 'id4'],
        ['types:SMSReport', 'id5'],
        ['soapenc:Array', 'id6'],
      ],
    );
    assert.equal(refs[2]?.attrs['soapenc:arrayType'], 'types:SMSReport[2]');
    assert.equal(refs[5]?.attrs['soapenc:arrayType'], 'types:dbSMSLog[0]');
    const ids = new Set(refs.map((r) => `#${r.attrs.id}`));
    for (const n of all(body)) if (n.attrs.href) assert.ok(ids.has(n.attrs.href), n.attrs.href);
    const job = refs[0] as Node;
    assert.equal(child(job, 'Status')?.attrs['xsi:type'], 'types:SMSJobInfoStatus');
    assert.equal(child(refs[1], 'SendDate')?.text, '0001-01-01T00:00:00');
    assert.equal(child(refs[1], 'Id')?.attrs['xsi:type'], 'xsd:int');
    // Value-type fields the value leaves unset are written with their defaults; unset strings are not.
    assert.equal(child(refs[1], 'CustId')?.text, '0');
    assert.equal(child(refs[1], 'CreateDate')?.text, '0001-01-01T00:00:00');
    assert.equal(child(refs[1], 'Typ')?.text, 'AbsenderUeberAusland');
    assert.equal(child(refs[1], 'Sender'), undefined);
  });

  it('SOAP 1.2: inline values with soapenc:id, itemType/arraySize, rpc:result first', () => {
    const root = parse(writeSoapResponse(op, NS, '1.2', value, CATALOGUE));
    const wrapper = child(root, 'Body')?.children[0] as Node;
    assert.equal(child(root, 'Body')?.children.length, 1, 'no multi-refs');
    assert.equal(wrapper.children[0]?.name, 'rpc:result');
    const result = child(wrapper, 'GetInfoResult') as Node;
    assert.equal(result.attrs['soapenc:id'], 'id1');
    assert.equal(result.attrs['xsi:type'], 'types:SMSJobInfo');
    const report = child(result, 'Report') as Node;
    assert.equal(report.attrs['soapenc:itemType'], 'types:SMSReport');
    assert.equal(report.attrs['soapenc:arraySize'], '2');
    assert.deepEqual(
      report.children.map((c) => c.local),
      ['Item', 'Item'],
    );
  });

  it('WSDL: the encoded schema declares the complex types with unqualified s1 references', () => {
    const wsdl = generateWsdl({
      serviceName: 'X',
      ns: NS,
      ops: [op],
      catalogue: CATALOGUE,
      location: 'http://h/x.asmx',
      enableGet: false,
      enablePost: false,
    });
    assert.match(
      wsdl,
      /<s:schema elementFormDefault="qualified" targetNamespace="urn:test\/encodedTypes">[\s\S]*<s:complexType name="SMSJobInfo">[\s\S]*name="Report" type="s1:ArrayOfSMSReport"/,
    );
    assert.match(wsdl, /<wsdl:part name="GetInfoResult" type="s1:SMSJobInfo" \/>/);
    assert.match(wsdl, /wsdl:arrayType="s1:SMSReport\[\]"/);
  });
});
