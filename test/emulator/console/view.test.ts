import { strict as assert } from 'node:assert';
import { findOperation } from '../../../src/catalogue';
import { maskPasswords, readState } from '../../../src/emulator/console/view';
import { GatewayState } from '../../../src/emulator/state';

// readState: the snapshot as the page needs it; maskPasswords: the second mask over the request log.

const T0 = Date.UTC(2026, 10, 22, 10, 0, 0);
const CTX = { remoteAddress: '127.0.0.1', transport: 'soap11' as const };

function send(state: GatewayState, params: Record<string, unknown>): number {
  const op = findOperation('send', 'SendSMS')!;
  const r = state.invoke(
    op,
    {
      User: 'demo',
      Password: 'demo-password',
      Caption: 'c',
      Sender: 'ACME',
      SMSText: 'Hello',
      SmsTyp: 'Standard',
      SendDate: null,
      ...params,
    },
    CTX,
  ) as { Value: { JobId: number; Status: string } };
  assert.equal(r.Value.Status, 'Ok');
  return r.Value.JobId;
}

describe('console: reading the snapshot', () => {
  it('gives each text its encoding, segments and flags, and each recipient its phone key', () => {
    const state = new GatewayState({ clock: () => T0, balance: 1000 });
    send(state, { Recipient: ['+4917011111111', '017022222222'], SMSText: 'plain' });
    send(state, { Recipient: ['+4917011111111'], SMSText: 'Grüße ✓', SmsTyp: 'Flash' });
    send(state, { Recipient: ['+4917011111111'], SMSText: 'x'.repeat(200), SmsTyp: 'StandardLong' });
    const view = readState(state.snapshot(), '49');
    assert.equal(view.jobs.length, 3);
    const [plain, flash, long] = view.jobs;
    assert.deepEqual(plain!.keys, ['4917011111111', '4917022222222']);
    assert.deepEqual(plain!.recipients, ['+4917011111111', '017022222222']);
    assert.deepEqual(
      [plain!.encoding, plain!.segments, plain!.flash, plain!.long],
      ['gsm7', 1, false, false],
    );
    assert.deepEqual([flash!.encoding, flash!.flash], ['ucs2', true]);
    assert.deepEqual([long!.encoding, long!.segments, long!.long], ['gsm7', 2, true]);
    assert.equal(view.accounts[0]!.user, 'demo');
    assert.ok(view.accounts[0]!.reserved > 0, 'credits are reserved until the jobs are sent');
  });

  it('lists reports by phone key and inbound messages with collected state, never a report record', () => {
    const state = new GatewayState({ clock: () => T0 });
    state.setSubscriberState('017011111111', 'unreachable');
    const id = send(state, { Recipient: ['+4917011111111'] });
    state.finishJobs();
    state.injectInbound({ from: '0170 11111111', text: 'reply', jobId: id });
    const view = readState(state.snapshot(), '49');
    const job = view.jobs[0]!;
    assert.equal(job.status, 'Fehler');
    assert.equal(job.reports.length, 1);
    assert.deepEqual([job.reports[0]!.key, job.reports[0]!.status], ['4917011111111', 'EXPIRED']);
    assert.deepEqual(view.subscribers, { '4917011111111': 'unreachable' });
    assert.equal(view.inbound.length, 1);
    assert.deepEqual(
      [view.inbound[0]!.key, view.inbound[0]!.jobId, view.inbound[0]!.collected],
      ['4917011111111', id, false],
    );
  });

  it('tolerates a backend whose snapshot is flat or empty', () => {
    assert.deepEqual(readState({ accounts: [{ user: 'u', balance: 5 }] }, '49').accounts, [
      { user: 'u', balance: 5, reserved: 0, locked: false },
    ]);
    const empty = readState(undefined, '49');
    assert.deepEqual([empty.accounts, empty.jobs, empty.inbound], [[], [], []]);
  });
});

describe('console: password mask', () => {
  it('masks password elements of any prefix and case, CDATA included, and keeps the rest', () => {
    const xml =
      '<q1:SMSCR><serial>demo</serial><password><![CDATA[se<cr]]>et]]></password></q1:SMSCR>' +
      '<Password xsi:type="xsd:string">p&amp;w</Password><PASSWORD>x</PASSWORD><Password/>';
    const masked = maskPasswords(xml);
    assert.ok(!/se<cr|p&amp;w|>x</.test(masked), masked);
    assert.ok(masked.includes('<serial>demo</serial>'));
    assert.ok(masked.includes('<Password/>'));
  });

  it('masks password form fields, also with percent-encoded keys', () => {
    const masked = maskPasswords('GET /x/QueryAccountBalance?User=demo&Pass%77ord=s3cret&SMSCPassword=z&o=1');
    assert.ok(!masked.includes('s3cret') && !masked.includes('=z&'), masked);
    assert.ok(masked.includes('User=demo') && masked.includes('o=1'));
  });
});
