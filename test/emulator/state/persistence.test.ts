import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { T0, balance, jobById, makeState, sendSms, typed, type Rec } from './helpers';

describe('emulator state: state file', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'smsgw-state-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('round-trips jobs, reports, balance, inbound, HLR, customers and the clock through the file', () => {
    const stateFile = join(dir, 'nested', 'state.json');
    const a = makeState({ stateFile });
    const done = sendSms(a, { Caption: 'persisted' });
    a.advance(700);
    const pending = sendSms(a, { Caption: 'pending', SMSText: 'later' });
    a.injectInbound({ from: '+491', text: 'reply', jobId: done.JobId });
    a.setSubscriberState('+4917000000001', 'unknown');
    typed(a, 'customer', 'CreateCustomer', {
      CompanyName: 'X',
      SMSCSerial: 'xx-01',
      SMSCPassword: 'secret1',
    });
    a.close();
    assert.ok(existsSync(stateFile));
    assert.deepEqual(readdirSync(join(dir, 'nested')), ['state.json'], 'no temp file left behind');
    assert.equal(statSync(stateFile).mode & 0o077, 0, 'only the owner may read it');

    const b = makeState({ stateFile });
    assert.equal(jobById(b, done.JobId)['Status'], 'Erledigt');
    assert.equal(balance(b), 99);
    const reports = typed<Rec[]>(b, 'information', 'QueryReceivedDLR', { StartDate: null, Limit: 0 }).Value!;
    assert.deepEqual(
      reports.map((r) => r['JobId']),
      [done.JobId],
    );
    assert.equal(typed<Rec[]>(b, 'information', 'QueryReceivedNewSMS', {}).Value!.length, 1);
    assert.equal(typed<Rec[]>(b, 'customer', 'GetCustomerList', {}).Value!.length, 2);
    assert.equal(jobById(b, pending.JobId)['Status'], 'Offen', 'the pending job survived');
    b.advance(700);
    assert.equal(jobById(b, pending.JobId)['Status'], 'Erledigt', 'and its transitions resume');
    const next = sendSms(b, { Caption: 'after reload' });
    assert.ok(next.JobId > pending.JobId, 'ids keep increasing');
    assert.equal(b.now(), T0 + 1400, 'the advanced clock was kept');
    b.close();
  });

  it('uses the file as seed: accounts from it, plus option accounts it lacks', () => {
    const stateFile = join(dir, 'seed.json');
    const first = makeState({ stateFile, balance: 5 });
    first.close();
    const seeded = JSON.parse(readFileSync(stateFile, 'utf8')) as {
      accounts: Array<{ account: { balance: number } }>;
    };
    seeded.accounts[0]!.account.balance = 42;
    writeFileSync(stateFile, JSON.stringify(seeded));
    const b = makeState({ stateFile, balance: 5, accounts: [{ user: 'extra', password: 'extra-password' }] });
    assert.equal(balance(b), 42);
    assert.equal(b.jobs('extra').length, 0);
    b.close();
  });

  it('saves on its own after changes (debounced)', async () => {
    const stateFile = join(dir, 'auto.json');
    const s = makeState({ stateFile, saveDelayMs: 5 });
    sendSms(s, { Caption: 'auto' });
    await new Promise((r) => setTimeout(r, 50));
    const saved = readFileSync(stateFile, 'utf8');
    assert.ok(saved.includes('"auto"'));
    s.close();
  });

  it('refuses a state file that is not JSON instead of overwriting it', () => {
    const stateFile = join(dir, 'broken.json');
    writeFileSync(stateFile, '{ not json');
    assert.throws(() => makeState({ stateFile }), /not valid JSON/);
    assert.equal(readFileSync(stateFile, 'utf8'), '{ not json');
  });
});
