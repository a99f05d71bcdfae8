import assert from 'node:assert/strict';
import {
  COMPLEX_TYPES,
  ENUMS,
  OPERATIONS,
  encodedTypesNamespace,
  findOperation,
  operationsOf,
  soapAction,
  type TypeRef,
} from '../../src/catalogue';

function referenced(type: TypeRef, out: Set<string>): void {
  if (type.kind === 'list') referenced(type.item, out);
  else if (type.kind !== 'primitive') out.add(`${type.kind}:${type.name}`);
}

describe('operation catalogue', () => {
  it('describes the 33 operations of the spec, per service', () => {
    assert.equal(OPERATIONS.length, 33);
    const names = (s: Parameters<typeof operationsOf>[0]) => operationsOf(s).map((o) => o.name);
    assert.deepEqual(names('information'), [
      'QueryJobs',
      'QueryJobInfoByJobCaption',
      'QueryNewHLRJobs',
      'QueryHLRJobsByJobID',
      'QueryReceivedDLRByJobID',
      'QueryReceivedDLR',
      'QueryReceivedSMSByJobCaption',
      'QueryReceivedNewSMS',
      'QueryAccountBalance',
    ]);
    assert.deepEqual(names('send'), [
      'SendSMS',
      'SendSimpleSMS',
      'SendMobileOrFixlineSMS',
      'SendHLR',
      'SendUDH',
    ]);
    assert.deepEqual(names('customer'), [
      'GetCustomerList',
      'GetCustomer',
      'GetCustomerWithAuthUser',
      'CreateCustomer',
    ]);
    assert.equal(operationsOf('legacy').length, 15);
  });

  it('marks exactly the RPC operations of the older service as RPC/encoded', () => {
    const rpc = OPERATIONS.filter((o) => o.style === 'rpc').map((o) => o.name);
    assert.deepEqual(rpc.sort(), [
      'GetNewRecivedSMS2',
      'GetRecivedSMS2',
      'QueryBalance2',
      'RecivedSMS2',
      'SMSCR',
      'SendSMS',
      'SendSimpleSMS',
      'SendText',
    ]);
    assert.ok(OPERATIONS.filter((o) => o.style === 'rpc').every((o) => o.service === 'legacy'));
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
