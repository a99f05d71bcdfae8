import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Node, NodeAPI } from 'node-red';
import { warnOnce } from '../../src/nodes/polling/odd-records';
import { Stub, reply, soapResult } from '../client/stub';
import {
  collect,
  flowWith,
  helper,
  loadFlow,
  send,
  sleep,
  startEnv,
  statuses,
  stopEnv,
  waitFor,
  warnings,
  type Env,
} from './helpers';

const NS = 'urn:test';

/** When the reports were written: the gateway sends the same report the same way on every read. */
const now = new Date().toISOString();

/** A QueryReceivedDLR page of reports 1..n, one with an Id that is not an integer. */
function dlrPage(n: number, extra = ''): string {
  const items: string[] = [];
  for (let i = 1; i <= n; i++) {
    const id = i === 100 ? 'x100' : String(i);
    const offset = i === 50 ? '+02:00' : '60';
    items.push(
      `<SMSReport><Id>${id}</Id><Recipient>+49170${i}</Recipient><JobId>${1000 + i}</JobId><Status>DELIVERED</Status>` +
        `<Date>${now}</Date><DoneDateTimeZoneOffset>${offset}</DoneDateTimeZoneOffset></SMSReport>`,
    );
    if (i === 150) items.push('<Other><Id>9</Id></Other>');
  }
  return soapResult(
    'QueryReceivedDLR',
    `<StatusCode>Ok</StatusCode><Value>${items.join('')}${extra}</Value>`,
    NS,
  );
}

/** A QueryReceivedNewSMS page of messages from..to, one with a date that is no date. */
function inboundPage(from: number, to: number): string {
  const items: string[] = [];
  for (let i = from; i <= to; i++) {
    const date = i === 7 ? 'yesterday' : '2026-11-22T10:00:00';
    items.push(
      `<dbReceivedSMS><Id>${i}</Id><JobId>${i}</JobId><Sender>+49171${i}</Sender><Text>msg ${i}</Text>` +
        `<Date>${date}</Date><Report>0</Report></dbReceivedSMS>`,
    );
  }
  return soapResult('QueryReceivedNewSMS', `<StatusCode>Ok</StatusCode><Value>${items.join('')}</Value>`, NS);
}

describe('nodes: one odd record never blocks a poller (fake gateway)', () => {
  let env: Env;
  let stub: Stub;
  let body = '';
  before(async () => {
    env = await startEnv();
    stub = await new Stub().start();
    stub.handler = (_r, res) => reply(res, 200, 'text/xml; charset=utf-8', body);
  });
  after(async () => {
    await stopEnv(env);
    await stub.stop();
  });
  afterEach(() => helper.unload());

  const poller = (type: string) => ({
    id: 'p1',
    type,
    gateway: 'cfg',
    interval: 60,
    inputs: 1,
    wires: [['out']],
  });

  /** Triggers one poll; returns what reached the output and what reached the Catch node. */
  async function pollOnce(): Promise<{ out: Record<string, unknown>[]; caught: Record<string, unknown>[] }> {
    const out = collect('out');
    const caught = collect('caught');
    const before = statuses('p1').length;
    send('p1', { payload: 'poll' });
    await waitFor(() =>
      statuses('p1')
        .slice(before)
        .some((s) => s.fill !== 'blue'),
    );
    await sleep(30);
    out.stop();
    caught.stop();
    return { out: out.messages, caught: caught.messages };
  }

  it('delivery reports: a 200-record page with one odd Id: 199 emitted once, the odd one to Catch, polling goes on', async () => {
    await loadFlow(flowWith(stub.url, [poller('smsgw-dlr')], { gatewayNamespace: NS }));
    body = dlrPage(200);
    const first = await pollOnce();
    assert.equal(first.out.length, 199);
    assert.deepEqual(
      first.out.map((m) => (m.payload as { Id: unknown }).Id),
      Array.from({ length: 200 }, (_, i) => i + 1).filter((i) => i !== 100),
    );
    // A value that does not fit its type is passed on as its text.
    const r50 = first.out.find((m) => (m.payload as { Id: number }).Id === 50)!.payload as Record<
      string,
      unknown
    >;
    assert.equal(r50.DoneDateTimeZoneOffset, '+02:00');
    // The record the cursor cannot tell apart reaches Catch with its raw Id, once.
    assert.equal(first.caught.length, 1);
    const odd = first.caught[0]!;
    assert.equal((odd.payload as { Id: unknown }).Id, 'x100');
    assert.equal(odd.topic, '1100');
    const error = odd.error as { message: string; source: { id: string } };
    assert.match(error.message, /QueryReceivedDLR: a record whose Id is not an integer \("x100"\)/);
    assert.equal(error.source.id, 'p1');
    // One warning per operation and field: the two odd values (Id, DoneDateTimeZoneOffset), the unknown element;
    // as the user reads them (the package's message catalogue).
    assert.deepEqual(warnings('p1').sort(), [
      'QueryReceivedDLR: SMSReport.DoneDateTimeZoneOffset = "+02:00" is not a valid int; passed on as text (this warning is shown once per field)',
      'QueryReceivedDLR: SMSReport.Id = "x100" is not a valid int; passed on as text (this warning is shown once per field)',
      'QueryReceivedDLR: unknown element <"Other"> in SOAPResponseOfListOfSMSReport.Value skipped (this warning is shown once)',
    ]);

    // The same page again (the cursor re-reads an overlap) plus one new report: only the new one.
    body = dlrPage(200, `<SMSReport><Id>201</Id><JobId>1201</JobId><Date>${now}</Date></SMSReport>`);
    const second = await pollOnce();
    assert.deepEqual(
      second.out.map((m) => (m.payload as { Id: unknown }).Id),
      [201],
    );
    assert.equal(second.caught.length, 0);
    assert.equal(warnings('p1').length, 3, 'warned once per field, not per poll');
    assert.ok(statuses('p1').at(-1)?.fill === 'green');
  });

  it('inbound: a 200-record page with one odd date: all 200 emitted once (the odd date as text), polling goes on', async () => {
    await loadFlow(flowWith(stub.url, [poller('smsgw-inbound')], { gatewayNamespace: NS }));
    body = inboundPage(1, 200);
    const first = await pollOnce();
    assert.equal(first.out.length, 200);
    assert.deepEqual(
      first.out.map((m) => m.payload),
      Array.from({ length: 200 }, (_, i) => `msg ${i + 1}`),
    );
    assert.equal((first.out[6]!.sms as { Date: unknown }).Date, 'yesterday');
    assert.ok((first.out[7]!.sms as { Date: unknown }).Date instanceof Date);
    assert.equal(first.caught.length, 0);
    const warned = warnings('p1');
    assert.equal(warned.length, 1, warned.join('\n'));

    body = inboundPage(195, 201);
    const second = await pollOnce();
    assert.deepEqual(
      second.out.map((m) => m.payload),
      ['msg 201'],
    );
    assert.equal(warnings('p1').length, 1);
  });

  it('inbound on the older service: an unreadable record is passed on as its text, the others as records', async () => {
    await loadFlow(
      flowWith(stub.url, [poller('smsgw-inbound')], { service: 'legacy', legacyNamespace: 'urn:legacy' }),
    );
    const text = '+491;first;2026-11-22 10:00:00;0\nno fields here\n+493;third;31.31.2026;0\n';
    body = soapResult('GetNewRecivedSMS2', text, 'urn:legacy');
    const got = await pollOnce();
    assert.deepEqual(
      got.out.map((m) => [m.payload, m.from]),
      [
        ['first', '+491'],
        ['no fields here', ''],
        ['third', '+493'],
      ],
    );
    assert.deepEqual(got.out[1]!.sms, { raw: 'no fields here' });
    assert.equal((got.out[2]!.sms as { date: unknown }).date, '31.31.2026');
    assert.deepEqual(warnings('p1').sort(), [
      'GetNewRecivedSMS2: a record could not be read ("no fields here"); passed on as raw text (this warning is shown once)',
      'GetNewRecivedSMS2: date = "31.31.2026" is not a valid date; passed on as text (this warning is shown once per field)',
    ]);
  });

  it('HLR results: a result with an odd Id goes to Catch once, the others are emitted', async () => {
    await loadFlow(flowWith(stub.url, [poller('smsgw-hlr-results')], { gatewayNamespace: NS }));
    const hlr = (ids: string[]) =>
      soapResult(
        'QueryNewHLRJobs',
        `<StatusCode>Ok</StatusCode><Value>${ids.map((id) => `<dbHLRJob><Id>${id}</Id><Number>+49${id}</Number></dbHLRJob>`).join('')}</Value>`,
        NS,
      );
    body = hlr(['1', 'two', '3']);
    const first = await pollOnce();
    assert.deepEqual(
      first.out.map((m) => (m.payload as { Id: unknown }).Id),
      [1, 3],
    );
    assert.deepEqual(
      first.caught.map((m) => (m.payload as { Id: unknown }).Id),
      ['two'],
    );
    body = hlr(['1', 'two', '3', '4']);
    const second = await pollOnce();
    assert.deepEqual(
      second.out.map((m) => (m.payload as { Id: unknown }).Id),
      [4],
    );
    assert.equal(second.caught.length, 0);
  });
});

describe('nodes: odd values in what an action node outputs (fake gateway)', () => {
  let env: Env;
  let stub: Stub;
  before(async () => {
    env = await startEnv();
    stub = await new Stub().start();
    const jobs = [
      '<dbSMSJob><Id>1</Id><Status>Erledigt</Status><Amount>0.09</Amount></dbSMSJob>',
      '<dbSMSJob><Id>2</Id><Status>Versendet</Status><Amount>n/a</Amount></dbSMSJob>',
      '<dbSMSJob><Id>3</Id><Status>Offen</Status><Amount>0.09</Amount></dbSMSJob>',
    ];
    const body = soapResult('QueryJobs', `<StatusCode>Ok</StatusCode><Value>${jobs.join('')}</Value>`, NS);
    stub.handler = (_r, res) => reply(res, 200, 'text/xml; charset=utf-8', body);
  });
  after(async () => {
    await stopEnv(env);
    await stub.stop();
  });
  afterEach(() => helper.unload());

  it('query jobs: every record is output, odd values as their text; one warning per field, not per call', async () => {
    await loadFlow(
      flowWith(
        stub.url,
        [
          {
            id: 'n1',
            type: 'smsgw-query-jobs',
            gateway: 'cfg',
            operation: 'QueryJobs',
            params: {},
            wires: [['out']],
          },
        ],
        { gatewayNamespace: NS },
      ),
    );
    for (let call = 0; call < 2; call++) {
      const out = collect('out');
      send('n1', { payload: call });
      await waitFor(() => out.messages.length === 1);
      out.stop();
      const jobs = out.messages[0]!.payload as Array<Record<string, unknown>>;
      assert.deepEqual(
        jobs.map((j) => [j.Id, j.Status, j.Amount]),
        [
          [1, 'Erledigt', 0.09],
          [2, 'Versendet', 'n/a'],
          [3, 'Offen', 0.09],
        ],
      );
    }
    const warned = warnings('n1');
    assert.equal(warned.length, 2, warned.join(' | '));
    assert.ok(warned.some((w) => /oddValue|dbSMSJob\.Status/.test(w)));
  });
});

describe('nodes: warnOnce (what a trigger logs of tolerant decoding)', () => {
  it('warns once per operation and field, naming the operation, the field and the value', () => {
    const logged: string[] = [];
    const RED = {
      _: (key: string, p: Record<string, string>) => `${key} ${JSON.stringify(p)}`,
    } as unknown as NodeAPI;
    const warn = warnOnce(RED, { warn: (m: string) => logged.push(m) } as unknown as Node);
    const value = {
      kind: 'value',
      service: 'information',
      operation: 'QueryReceivedDLR',
      type: 'int',
    } as const;
    warn({ ...value, field: 'SMSReport.DoneDateTimeZoneOffset', value: '+02:00', message: '' });
    warn({ ...value, field: 'SMSReport.DoneDateTimeZoneOffset', value: '+03:00', message: '' });
    warn({
      ...value,
      operation: 'QueryReceivedNewSMS',
      field: 'SMSReport.DoneDateTimeZoneOffset',
      value: 'x',
      message: '',
    });
    warn({ ...value, kind: 'element', field: 'SMSReport/Other', value: 'Other', message: '' });
    assert.equal(logged.length, 3);
    assert.match(logged[0]!, /errors\.oddValue/);
    const params = JSON.parse(logged[0]!.slice(logged[0]!.indexOf(' ') + 1)) as Record<string, string>;
    assert.deepEqual(params, {
      operation: 'QueryReceivedDLR',
      field: 'SMSReport.DoneDateTimeZoneOffset',
      where: 'SMSReport.DoneDateTimeZoneOffset',
      value: '"+02:00"',
      type: 'int',
    });
    assert.match(logged[2]!, /errors\.unknownElement.*"where":"SMSReport"/);
    // The texts use what they are given, in both languages.
    for (const locale of ['en-US', 'de']) {
      const errors = (
        JSON.parse(
          readFileSync(join(__dirname, '../../nodes/locales', locale, 'smsgw-config.json'), 'utf8'),
        ) as {
          'smsgw-config': { errors: Record<string, string> };
        }
      )['smsgw-config'].errors;
      assert.match(errors.oddValue!, /__operation__.*__field__.*__value__.*__type__/);
      assert.match(errors.unknownElement!, /__operation__.*__value__.*__where__/);
      assert.match(errors.oddRecord!, /__operation__.*__value__/);
    }
  });
});
