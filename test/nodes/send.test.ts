import assert from 'node:assert/strict';
import type { Node } from 'node-red';
import { startEmulator } from '../../src/emulator';
import { SlowGateway } from '../reliability/slow-gateway';
import {
  DEMO,
  emulatedJob,
  flowWith,
  helper,
  loadFlow,
  nextMessage,
  send,
  startEnv,
  statuses,
  stopEnv,
  waitFor,
  type Env,
} from './helpers';
import { sendSmsNode } from './send-sms-node';

describe('nodes: smsgw-send-sms', () => {
  let env: Env;
  before(async () => {
    env = await startEnv();
  });
  after(() => stopEnv(env));
  afterEach(() => helper.unload());

  const sender = (extra: Record<string, unknown> = {}) =>
    sendSmsNode({ smsType: 'Standard', smsTypeType: 'smstype', ...extra });

  it('sends msg.payload and outputs JobId, CreateStatus, segments; keeps other msg properties', async () => {
    await loadFlow(flowWith(env.emu.url, [sender()]));
    const out = nextMessage('out');
    send('n1', { payload: 'Alarm: pump 3 stopped', topic: 'alarm', keep: 42 });
    const msg = await out;
    const p = msg.payload as Record<string, unknown>;
    assert.equal(p.operation, 'SendSMS');
    assert.equal(p.CreateStatus, 'Ok');
    assert.equal(typeof p.JobId, 'number');
    assert.ok((p.JobId as number) > 0);
    assert.equal(p.queued, false);
    assert.equal(p.segments, 1);
    assert.equal(p.encoding, 'GSM-7');
    assert.deepEqual(p.recipients, ['+4917000000001']);
    assert.equal(msg.keep, 42);
    assert.equal(msg.topic, 'alarm');
    const job = emulatedJob(env, p.JobId);
    assert.ok(job, 'the emulator has the job');
    // The caption as sent: the flow's caption plus the unique reference (on by default), output with the msg.
    assert.match(String(p.caption), /^alarm #[a-z2-9]{10}$/);
    assert.equal(job.caption, p.caption);
    assert.equal(p.reference, String(p.caption).slice('alarm #'.length));
    assert.equal(p.recovered, false);
    assert.equal(job.text, 'Alarm: pump 3 stopped');
    const last = statuses('n1').at(-1)!;
    assert.equal(last.fill, 'green');
  });

  it('names the characters that force UCS-2 in the result; no `replaced` without the setting', async () => {
    await loadFlow(flowWith(env.emu.url, [sender()]));
    const out = nextMessage('out');
    send('n1', { payload: 'It’s ok', topic: 't' });
    const p = (await out).payload as Record<string, unknown>;
    assert.equal(p.encoding, 'UCS-2');
    assert.deepEqual(p.ucs2, [{ char: '’', at: 2 }]);
    assert.equal('replaced' in p, false);
    assert.equal(emulatedJob(env, p.JobId)!.text, 'It’s ok');
  });

  it('"Replace with GSM-7 look-alikes": the gateway, the spending guard and the result see the replaced text; the status says how many', async () => {
    // 161 characters: 3 UCS-2 segments as typed, 2 GSM-7 segments once replaced.
    const typed = 'Pump 3’s “level” – low… ';
    const sent = `Pump 3's "level" - low... `;
    const pad = 'x'.repeat(161 - sent.length);
    await loadFlow(
      flowWith(env.emu.url, [sender({ replaceLookalikes: true, smsType: 'StandardLong' })], {
        budgetDay: 1000,
      }),
    );
    const counted = async (): Promise<number> => {
      const res = await helper.request().get('/smsgw-config/cfg/budget').expect(200);
      return (res.body as { windows: { count: number }[] }).windows[0]!.count;
    };
    const before = await counted();
    const out = nextMessage('out');
    send('n1', { payload: typed + pad, topic: 't' });
    const p = (await out).payload as Record<string, unknown>;
    assert.equal(p.replaced, 5);
    assert.equal(p.encoding, 'GSM-7');
    assert.equal(p.segments, 2);
    assert.deepEqual(p.ucs2, []);
    assert.equal(emulatedJob(env, p.JobId)!.text, sent + pad);
    // The guard counted 2 segments x 1 recipient (3 as typed).
    assert.equal((await counted()) - before, 2);
    assert.match(String(statuses('n1').at(-1)!.text), /status\.replaced|5 replaced/);
  });

  it('the replacement leaves letters alone: Ł, ó, ź keep the text UCS-2 and are named', async () => {
    await loadFlow(flowWith(env.emu.url, [sender({ replaceLookalikes: true })]));
    const out = nextMessage('out');
    send('n1', { payload: 'Łódź’', topic: 't' });
    const p = (await out).payload as Record<string, unknown>;
    assert.equal(p.replaced, 1);
    assert.equal(p.encoding, 'UCS-2');
    assert.deepEqual(p.ucs2, [
      { char: 'Ł', at: 0 },
      { char: 'ó', at: 1 },
      { char: 'ź', at: 3 },
    ]);
    assert.equal(emulatedJob(env, p.JobId)!.text, "Łódź'");
  });

  it('msg.recipients (array), msg.sender and msg.operation override the dialog', async () => {
    await loadFlow(flowWith(env.emu.url, [sender()]));
    const out = nextMessage('out');
    send('n1', {
      payload: 'Grüße – ünïcödé ✓',
      recipients: ['+4917000000002', '+4917000000003'],
      sender: 'Plant',
      topic: 'multi',
    });
    const p = (await out).payload as Record<string, unknown>;
    assert.deepEqual(p.recipients, ['+4917000000002', '+4917000000003']);
    assert.equal(p.encoding, 'UCS-2');
    const job = emulatedJob(env, p.JobId)!;
    assert.equal(job.sender, 'Plant');
    assert.equal(job.recipients.length, 2);
  });

  it('msg.operation, msg.smsType and msg.caption override the dialog', async () => {
    await loadFlow(flowWith(env.emu.url, [sender()]));
    const out = nextMessage('out');
    send('n1', {
      payload: 'x',
      smsType: 'Flash',
      caption: 'from-msg',
      topic: 'ignored',
      recipient: '+4917000000009',
    });
    const p = (await out).payload as { JobId: number; caption: string };
    const job = emulatedJob(env, p.JobId)!;
    assert.equal(job.typ, 'Flash');
    assert.equal(job.caption, p.caption);
    assert.ok(String(p.caption).startsWith('from-msg #'));

    const again = nextMessage('out');
    send('n1', { payload: 'y', operation: 'SendMobileOrFixlineSMS', recipient: '+4930123456' });
    const q = (await again).payload as { operation: string; results: unknown[] };
    assert.equal(q.operation, 'SendMobileOrFixlineSMS');
    assert.equal(q.results.length, 1);

    const caught = nextMessage('caught');
    send('n1', { payload: 'z', operation: 'QueryJobs' });
    assert.equal(((await caught).error as { code: string }).code, 'VALIDATION');
  });

  it('a comma/semicolon list in the dialog is several recipients', async () => {
    await loadFlow(
      flowWith(env.emu.url, [sender({ recipient: '+4917000000004; +4917000000005,+4917000000006' })]),
    );
    const out = nextMessage('out');
    send('n1', { payload: 'x' });
    assert.equal(((await out).payload as { recipients: string[] }).recipients.length, 3);
  });

  it('SendMobileOrFixlineSMS returns one result per job the service created', async () => {
    await loadFlow(flowWith(env.emu.url, [sender({ operation: 'SendMobileOrFixlineSMS' })]));
    const out = nextMessage('out');
    send('n1', { payload: 'x', recipients: '+4917000000007,+4930123456' });
    const p = (await out).payload as { results: { JobId: number; CreateStatus: string }[] };
    assert.equal(p.results.length, 2);
    assert.ok(p.results.every((r) => r.CreateStatus === 'Ok' && r.JobId > 0));
  });

  it('closing the node fails the send it has in flight at the Catch node, also after earlier sends (reused signals)', async () => {
    const gw = new SlowGateway({
      password: DEMO.password,
      balance: 1e6,
      timing: { processingMs: 0, deliveryMs: 0 },
    });
    const emu = await startEmulator({ backend: gw, console: false });
    try {
      await loadFlow(flowWith(emu.url, [sender()]));
      for (let i = 0; i < 3; i++) {
        const out = nextMessage('out');
        send('n1', { payload: `before ${i}` });
        await out;
      }
      gw.lateSends = 1;
      gw.lateMs = 2000;
      const caught = nextMessage('caught');
      send('n1', { payload: 'held', marker: 'held' });
      await waitFor(() => gw.lateCommits === 1);
      await (helper.getNode('n1') as unknown as Node & { close(removed: boolean): Promise<void> }).close(
        false,
      );
      const msg = await caught;
      assert.equal(msg.marker, 'held');
      assert.equal((msg.error as { code: string }).code, 'TIMEOUT');
    } finally {
      await helper.unload();
      await emu.close();
    }
  });

  it('SendSimpleSMS with two recipients is a VALIDATION error that reaches a Catch node', async () => {
    await loadFlow(flowWith(env.emu.url, [sender({ operation: 'SendSimpleSMS' })]));
    const caught = nextMessage('caught');
    send('n1', { payload: 'x', recipients: ['+4917000000001', '+4917000000002'], marker: 'm1' });
    const msg = await caught;
    const error = msg.error as Record<string, unknown>;
    assert.equal(error.code, 'VALIDATION');
    assert.equal(msg.marker, 'm1');
    assert.equal((error.source as { id: string }).id, 'n1');
  });

  it('a rejected send (CreateStatus) reaches Catch with code REJECTED and the service status', async () => {
    await loadFlow(flowWith(env.emu.url, [sender()]));
    const caught = nextMessage('caught');
    send('n1', { payload: '   ' });
    const error = (await caught).error as { code: string; cause: { status: string; operation: string } };
    assert.equal(error.code, 'REJECTED');
    assert.equal(error.cause.status, 'NoTextFound');
    assert.equal(error.cause.operation, 'SendSMS');
    const last = statuses('n1').at(-1)!;
    assert.equal(last.fill, 'red');
    assert.match(String(last.text), /NoTextFound/);
  });

  it('a wrong password reaches Catch with code AUTH and LoginStatus, never the password', async () => {
    await loadFlow(flowWith(env.emu.url, [sender()]), {
      cfg: { user: 'demo', password: 'wrong-secret-xyz' },
    });
    const caught = nextMessage('caught');
    send('n1', { payload: 'x' });
    const msg = await caught;
    const error = msg.error as { code: string; cause: { status: string } };
    assert.equal(error.code, 'AUTH');
    assert.equal(error.cause.status, 'InvalidUser');
    assert.ok(!JSON.stringify(msg).includes('wrong-secret-xyz'));
    assert.ok(!JSON.stringify(statuses('n1')).includes('wrong-secret-xyz'));
  });

  it('an unreachable gateway reaches Catch with code NETWORK', async () => {
    await loadFlow(flowWith('http://127.0.0.1:9', [sender()], { timeout: 5 }));
    const caught = nextMessage('caught');
    send('n1', { payload: 'x' });
    const error = (await caught).error as { code: string };
    assert.ok(['NETWORK', 'TIMEOUT'].includes(error.code), error.code);
  });

  it('a job accepted without credits is yellow and queued', async () => {
    env.emu.control.setBalance('demo', 0);
    try {
      await loadFlow(flowWith(env.emu.url, [sender()]));
      const out = nextMessage('out');
      send('n1', { payload: 'x' });
      const p = (await out).payload as { queued: boolean; CreateStatus: string };
      assert.equal(p.queued, true);
      assert.equal(p.CreateStatus, 'JobIsQueuedInsufficientCredits');
      assert.equal(statuses('n1').at(-1)!.fill, 'yellow');
    } finally {
      env.emu.control.setBalance('demo', 1000);
    }
  });

  it('credentials from ${ENV} work', async () => {
    process.env.SMSGW_USER = 'demo';
    process.env.SMSGW_PASS = 'demo-password';
    try {
      await loadFlow(flowWith(env.emu.url, [sender()]), {
        cfg: { user: '${SMSGW_USER}', password: '${SMSGW_PASS}' },
      });
      const out = nextMessage('out');
      send('n1', { payload: 'via env' });
      assert.equal(((await out).payload as { CreateStatus: string }).CreateStatus, 'Ok');
    } finally {
      delete process.env.SMSGW_USER;
      delete process.env.SMSGW_PASS;
    }
  });

  it('without a config node every msg is a CONFIG error', async () => {
    await loadFlow(flowWith(env.emu.url, [sender({ gateway: '' })]));
    const caught = nextMessage('caught');
    send('n1', { payload: 'x' });
    assert.equal(((await caught).error as { code: string }).code, 'CONFIG');
  });
});
