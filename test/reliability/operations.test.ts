import assert from 'node:assert/strict';
import { GatewayClient } from '../../src/client';
import type { RunningEmulator } from '../../src/emulator';
import { GatewayError } from '../../src/errors';
import { PASSWORD, quietEmulator } from './helpers';

// Every send with a caption is found again after its answer was lost; the others are never sent twice.

describe('reliability: safe retries per send operation (answer lost after the commit)', function () {
  this.timeout(30_000);
  let emu: RunningEmulator;
  let client: GatewayClient;
  beforeEach(async () => {
    emu = await quietEmulator({ duplicateWindowMs: 0 });
    client = new GatewayClient({
      baseUrl: emu.url,
      user: 'demo',
      password: PASSWORD,
      timeoutMs: 2000,
      reference: true,
      safeRetries: { settleMs: 10, backoffMs: 5 },
    });
  });
  afterEach(async () => {
    await client.close();
    await emu.close();
  });

  const lose = (operation: string): void => {
    emu.faults.add({ kind: 'commitThenDrop', operation });
  };
  const jobsWith = (caption: string) => emu.state.jobs().filter((j) => j.caption.startsWith(`${caption} #`));

  it('SendSimpleSMS, SendHLR, SendUDH: recovered with the JobId of the one job', async () => {
    lose('SendSimpleSMS');
    const a = await client.send.sendSimpleSms({
      Caption: 'simple',
      Sender: 'S',
      Recipient: '+4917012345678',
      SMSText: 'x',
      SmsTyp: 'Standard',
      SendDate: '',
    });
    lose('SendHLR');
    const b = await client.send.sendHlr({ Caption: 'hlr', Recipient: '+4917012345678' });
    lose('SendUDH');
    const c = await client.send.sendUdh({
      Caption: 'udh',
      Recipient: '+4917012345678',
      Sender: 'S',
      Data: '0500030A0201' + '48656C6C6F',
      SendDate: '',
    });
    for (const [caption, value] of [
      ['simple', a],
      ['hlr', b],
      ['udh', c],
    ] as const) {
      const jobs = jobsWith(caption);
      assert.equal(jobs.length, 1, caption);
      assert.equal((value as { JobId?: number }).JobId, jobs[0]!.id, caption);
      assert.equal((value as { recovered?: boolean }).recovered, true, caption);
    }
    assert.equal((c as { ParseStatus?: string }).ParseStatus, 'Ok');
  });

  it('SendMobileOrFixlineSMS: both jobs found (QueryJobs), none created twice', async () => {
    lose('SendMobileOrFixlineSMS');
    const r = await client.send.sendMobileOrFixlineSms({
      Caption: 'mixed',
      Sender: 'S',
      Recipient: '+4917012345678,+49301234567',
      SMSText: 'x',
      SendDate: '',
    });
    const jobs = jobsWith('mixed');
    assert.equal(jobs.length, 2);
    assert.deepEqual(
      r.map((j) => j.JobId),
      jobs.map((j) => j.id),
    );
  });

  it('older service: SMSCR (caption) and SendSMS (RPC) recovered by GetJobs1 with a custom separator', async () => {
    await client.close();
    client = new GatewayClient({
      baseUrl: emu.url,
      user: 'demo',
      password: PASSWORD,
      reference: { length: 8, separator: '/', position: 'prefix' },
      legacySeparator: '|',
      safeRetries: { settleMs: 10 },
    });
    lose('SMSCR');
    const a = await client.legacy.smscr({
      caption: 'cr',
      Msg: 'x',
      Sender: 'S',
      bRecipient: Buffer.from('+4917012345678'),
      SendDate: null,
      SmsTyp: 1,
    });
    lose('SendSMS');
    const b = await client.legacy.sendSms({
      Caption: 'rpc',
      Sender: 'S',
      Recipient: ['+4917012345678'],
      SMSText: 'x',
      SmsTyp: 1,
      SendDate: null,
    });
    const jobs = emu.state.jobs();
    assert.equal(jobs.length, 2);
    assert.match(jobs[0]!.caption, /^[a-z0-9]{8}\/cr$/);
    assert.deepEqual([Number(a.id), Number(b.id)], [jobs[0]!.id, jobs[1]!.id]);
  });

  it('a send without a caption (older SendSimpleSMS) is not repeated after an ambiguous failure', async () => {
    lose('SendSimpleSMS');
    const err = await client.legacy.sendSimpleSms({ Recipient: '+4917012345678', SMSText: 'x' }).then(
      () => assert.fail('expected a rejection'),
      (e: unknown) => e as GatewayError,
    );
    assert.equal(err.ambiguous, true);
    assert.match(err.message, /no reference to look it up/);
    assert.equal(emu.state.jobs().length, 1);
  });

  it('failures before the request was written are retried directly; refusals never', async () => {
    emu.faults.add({ kind: 'http503', operation: 'SendSMS', count: 2 });
    emu.faults.add({ kind: 'reset', operation: 'SendSMS' }); // reset before reading: ambiguous to the client
    const p = {
      Caption: 'retry',
      Sender: 'S',
      Recipient: ['+4917012345678'],
      SMSText: 'x',
      SmsTyp: 'Standard' as const,
      SendDate: null,
    };
    const ok = await client.send.sendSms(p);
    assert.equal(jobsWith('retry').length, 1);
    assert.equal(ok.JobId, jobsWith('retry')[0]!.id);
    assert.equal(client.stats.attempts, 4);
    const before = client.stats.attempts;
    await assert.rejects(
      client.send.sendSms({ ...p, Caption: 'bad', SMSText: 'BLACKLISTED' }),
      (e: GatewayError) => e.code === 'REJECTED' && e.status === 'MsgTextBlacklistFound' && !e.ambiguous,
    );
    await assert.rejects(
      client.send.sendSms({ ...p, Caption: 'nobody', Recipient: [' '] }),
      (e: GatewayError) => e.code === 'VALIDATION',
    );
    assert.equal(client.stats.attempts, before + 1, 'a refusal is not repeated');
  });

  it('safeRetries: false sends once and keeps the caption as given', async () => {
    await client.close();
    client = new GatewayClient({ baseUrl: emu.url, user: 'demo', password: PASSWORD, safeRetries: false });
    lose('SendSMS');
    await assert.rejects(
      client.send.sendSms({
        Caption: 'once',
        Sender: 'S',
        Recipient: ['+4917012345678'],
        SMSText: 'x',
        SmsTyp: 'Standard',
        SendDate: null,
      }),
      (e: GatewayError) => e.ambiguous,
    );
    assert.deepEqual(
      emu.state.jobs().map((j) => j.caption),
      ['once'],
    );
  });
});
