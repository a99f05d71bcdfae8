import assert from 'node:assert/strict';
import {
  CATALOGUE,
  COMPLEX_TYPES,
  ENUMS,
  OPERATIONS,
  createCatalogue,
  encodedTypesNamespace,
  findOperation,
  methodName,
  operationsOf,
  soapAction,
  type TypeRef,
} from '../../src/catalogue';

function referenced(type: TypeRef, out: Set<string>): void {
  if (type.kind === 'list') referenced(type.item, out);
  else if (type.kind !== 'primitive') out.add(`${type.kind}:${type.name}`);
}

describe('operation catalogue', () => {
  // Counts and lists come from the catalogue itself: adding an operation changes no test (CONTRIBUTING.md).
  it('holds each operation once, under its service, with a distinct typed method name', () => {
    const services = ['information', 'send', 'customer', 'legacy'] as const;
    assert.equal(
      services.reduce((n, s) => n + operationsOf(s).length, 0),
      OPERATIONS.length,
    );
    for (const s of services) {
      assert.ok(operationsOf(s).length > 0, s);
      assert.ok(operationsOf(s).every((op) => op.service === s));
      const methods = operationsOf(s).map((op) => methodName(op));
      assert.equal(new Set(methods).size, methods.length, `${s}: two operations share a method name`);
    }
    for (const op of OPERATIONS) {
      assert.equal(findOperation(op.service, op.name), op);
      assert.equal(CATALOGUE.find(op.service, op.name), op);
      assert.ok(op.doc.length > 0, `${op.name} has no doc`);
    }
    assert.deepEqual(CATALOGUE.operations, OPERATIONS);
    assert.equal(findOperation('information', 'SendSMS'), undefined);
    assert.notEqual(findOperation('send', 'SendSMS'), findOperation('legacy', 'SendSMS'));
  });

  it('refuses a catalogue that lists an operation twice, and unknown type names', () => {
    assert.throws(
      () => createCatalogue({ ...CATALOGUE, operations: [...OPERATIONS, OPERATIONS[0]!] }),
      /lists information\/QueryJobs twice/,
    );
    assert.throws(() => CATALOGUE.complexType('NoSuchType'), /unknown complex type NoSuchType/);
    assert.throws(() => CATALOGUE.enumType('toString'), /unknown enum toString/);
  });

  it('marks what costs money or reaches a phone: every send, HLR, UDH, binary, SMSCR; no read, no customer operation', () => {
    const marked = OPERATIONS.filter((o) => o.costs === true).map((o) => `${o.service}/${o.name}`);
    assert.deepEqual(marked, [
      'send/SendSMS',
      'send/SendSimpleSMS',
      'send/SendMobileOrFixlineSMS',
      'send/SendHLR',
      'send/SendUDH',
      'legacy/SendText',
      'legacy/SendText2',
      'legacy/SendSMS',
      'legacy/SendSMS2',
      'legacy/SendSimpleSMS',
      'legacy/SMSCR',
      'legacy/SendBinURL',
      'legacy/SendBinData',
      'legacy/SendBinData2',
    ]);
    // Every operation that creates a job is marked; a catalogue that forgets one is refused.
    for (const op of OPERATIONS) if (op.sends) assert.equal(op.costs, true, op.name);
    const unmarked = { ...OPERATIONS.find((o) => o.name === 'SendHLR')!, costs: false };
    assert.throws(
      () =>
        createCatalogue({
          ...CATALOGUE,
          operations: [...OPERATIONS.filter((o) => o.name !== 'SendHLR'), unmarked],
        }),
      /send\/SendHLR as creating a job \(sends\) but not as costing \(costs\)/,
    );
  });

  it('marks RPC/encoded operations only in the older service, as the spec does', () => {
    assert.ok(OPERATIONS.filter((o) => o.style === 'rpc').every((o) => o.service === 'legacy'));
    // Spot checks of the spec's table: the RPC operations have document-style twins.
    const style = (name: string): string | undefined => findOperation('legacy', name)?.style;
    assert.deepEqual(
      [style('SendText'), style('SendText2'), style('SendSMS'), style('SendSMS2'), style('QueryBalance2')],
      ['rpc', 'document', 'rpc', 'document', 'rpc'],
    );
  });

  it('gives every operation one user and one password parameter', () => {
    for (const op of OPERATIONS) {
      const roles = op.params.filter((p) => p.credential).map((p) => p.credential);
      assert.deepEqual(roles, ['user', 'password'], op.name);
    }
    const smscr = findOperation('legacy', 'SMSCR');
    assert.deepEqual(
      smscr?.params.filter((p) => p.credential).map((p) => p.name),
      ['serial', 'password'],
    );
  });

  it('has no dangling type references and unique parameter names', () => {
    const refs = new Set<string>();
    for (const op of OPERATIONS) {
      op.params.forEach((p) => referenced(p.type, refs));
      referenced(op.result.type, refs);
      assert.equal(new Set(op.params.map((p) => p.name.toLowerCase())).size, op.params.length, op.name);
    }
    for (const c of Object.values(COMPLEX_TYPES)) c.fields.forEach((f) => referenced(f.type, refs));
    for (const r of refs) {
      const [kind, name] = r.split(':') as [string, string];
      assert.ok(kind === 'enum' ? ENUMS[name] : COMPLEX_TYPES[name], `missing ${r}`);
    }
  });

  it('names bare results as the spec does and gives typed results a StatusCode/Value envelope', () => {
    assert.equal(findOperation('information', 'QueryAccountBalance')?.result.bare, 'SOAPResponseOfDouble');
    assert.equal(
      findOperation('send', 'SendMobileOrFixlineSMS')?.result.bare,
      'ArrayOfSOAPResponseOfCreateJobInfo',
    );
    assert.equal(findOperation('information', 'QueryNewHLRJobs')?.result.bare, 'SOAPResponseOfHLRJobList');
    for (const op of OPERATIONS.filter((o) => o.service !== 'legacy' && o.result.type.kind === 'complex')) {
      const env = COMPLEX_TYPES[(op.result.type as { name: string }).name];
      assert.deepEqual(
        env?.fields.map((f) => f.name),
        ['StatusCode', 'Value'],
        op.name,
      );
    }
    assert.ok(OPERATIONS.filter((o) => o.service === 'legacy').every((o) => o.result.bare === 'string'));
  });

  it('keeps the spec spelling of enum members', () => {
    assert.ok(ENUMS.SMSLogPriority?.values.includes('Crtitical'));
    assert.ok(ENUMS.CreateStatus?.values.includes('UnknowError'));
    assert.equal(ENUMS.JobType?.values.length, 25);
    assert.equal(ENUMS.CreateStatus?.values.length, 14);
  });

  it('derives SOAPAction and the encoded types namespace as ASMX does', () => {
    assert.equal(soapAction('http://x.org/gw/', 'SendSMS'), 'http://x.org/gw/SendSMS');
    assert.equal(soapAction('urn:gw', 'SendSMS'), 'urn:gw/SendSMS');
    assert.equal(encodedTypesNamespace('http://x.org/gw/'), 'http://x.org/gw/encodedTypes');
    assert.equal(encodedTypesNamespace('urn:gw'), 'urn:gw/encodedTypes');
  });
});
