/**
 * The hard cap on a message's text and data (issue 19 §6): 64 KiB, checked in O(1) before anything reads the
 * value, on every send path of the client, whatever the segment checks say. A 10 MB text took 3-8 s of analysis
 * before it was refused (with the checks off it was sent). Each case asserts VALIDATION naming the parameter,
 * nothing at the gateway, and that the call blocked the event loop less than 20 ms: the refusal itself takes
 * well under a millisecond, the bound leaves room for a loaded machine (test/helpers/loop-block.ts).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GatewayClient, type GatewayClientOptions } from '../../src/client';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { isGatewayError } from '../../src/errors';
import { Outbox, clientSender } from '../../src/reliability';
import { MAX_CONTENT_LENGTH } from '../../src/text';
import { bigText, longestBlockMs } from '../helpers/loop-block';

const USER = 'demo';
const PASSWORD = 'demo-password';
const TEN_MB = 10 * 1024 * 1024;
const BLOCK_BOUND_MS = 20;

describe('client: the hard cap on text and data (64 KiB, before any analysis)', function () {
  this.timeout(60_000);
  let emu: RunningEmulator;
  const text = bigText(TEN_MB);
  const bytes = Buffer.alloc(TEN_MB, 1);

  before(async () => {
    emu = await startEmulator({ port: 0 });
    emu.control.setBalance(USER, 1_000_000);
  });
  after(() => emu.close());

  const jobs = (): number =>
    (emu.control.snapshot() as { accounts: { jobs: unknown[] }[] }).accounts.reduce(
      (n, a) => n + a.jobs.length,
      0,
    );

  const clientWith = (extra: Partial<GatewayClientOptions> = {}): GatewayClient =>
    new GatewayClient({ baseUrl: emu.url, user: USER, password: PASSWORD, retries: 0, ...extra });

  /** Runs `call` (measuring the loop), expects VALIDATION naming `name`, and that nothing reached the gateway. */
  async function refused(call: () => Promise<unknown>, name: RegExp): Promise<void> {
    const before = jobs();
    let err: unknown;
    const blocked = await longestBlockMs(async () => {
      err = await call().then(
        () => new Error('sent'),
        (e: unknown) => e,
      );
    });
    assert.ok(isGatewayError(err), String(err));
    assert.equal(err.code, 'VALIDATION', err.message);
    assert.match(err.message, name);
    assert.match(err.message, /at most 65,536/);
    assert.equal(err.ambiguous, false);
    assert.equal(jobs(), before, 'nothing reached the gateway');
    assert.ok(blocked < BLOCK_BOUND_MS, `the event loop was blocked ${blocked.toFixed(1)} ms`);
  }

  const recipient = '+4917012345678';
  const base = { Caption: 'cap', Sender: 'Flow', SendDate: null };
  const paths: Array<
    [string, Partial<GatewayClientOptions>, (c: GatewayClient) => Promise<unknown>, RegExp]
  > = [
    [
      'SendSMS (segment checks on)',
      {},
      (c) => c.send.sendSms({ ...base, Recipient: [recipient], SMSText: text, SmsTyp: 'Standard' }),
      /SMSText: 10,485,760 characters/,
    ],
    [
      'SendSMS with the segment checks and the recipient check off',
      { segmentLimits: false, checkRecipients: false },
      (c) => c.send.sendSms({ ...base, Recipient: [recipient], SMSText: text, SmsTyp: 'Standard' }),
      /SMSText: 10,485,760 characters/,
    ],
    [
      'SendMobileOrFixlineSMS',
      {},
      (c) => c.send.sendMobileOrFixlineSms({ ...base, SendDate: '', Recipient: recipient, SMSText: text }),
      /SMSText/,
    ],
    [
      'SendUDH (hex data)',
      {},
      (c) => c.send.sendUdh({ ...base, SendDate: '', Recipient: recipient, Data: text }),
      /Data: 10,485,760 characters/,
    ],
    [
      'older service SendText',
      { segmentLimits: false },
      (c) => c.legacy.sendText({ ...base, SendDate: '', Recipient: recipient, SMSText: text, SmsTyp: '1' }),
      /SMSText/,
    ],
    [
      'older service SMSCR (Msg)',
      {},
      (c) =>
        c.legacy.smscr({
          caption: 'cap',
          Sender: 'F',
          Msg: text,
          bRecipient: Buffer.from(recipient),
          SmsTyp: 1,
          SendDate: null,
        }),
      /Msg: 10,485,760 characters/,
    ],
    [
      'older service SendBinData (bytes)',
      {},
      (c) =>
        c.legacy.sendBinData({
          Recipient: recipient,
          strMsg: 'x',
          MsgType: 1,
          binTyp: 1,
          Data: bytes,
          sendDate: null,
        } as never),
      /Data: 10,485,760 bytes/,
    ],
    [
      'older service SendBinData (strMsg)',
      {},
      (c) =>
        c.legacy.sendBinData({
          Recipient: recipient,
          strMsg: text,
          MsgType: 1,
          binTyp: 1,
          Data: Buffer.from([1]),
          sendDate: null,
        } as never),
      /strMsg/,
    ],
    [
      'invoke() of a send',
      { segmentLimits: false },
      (c) => c.invoke('send', 'SendSMS', { Recipient: { string: [recipient] }, SMSText: text }),
      /SMSText: 10,485,760 characters/,
    ],
    [
      'invoke() of an operation the catalogue does not know',
      {},
      (c) => c.invoke('/gateway/Other.asmx', 'Whatever', { Data: bytes }),
      /Data: 10,485,760 bytes/,
    ],
  ];

  for (const [label, options, call, name] of paths) {
    it(`${label}: a 10 MB value is refused with VALIDATION at once`, async () => {
      const client = clientWith({ gatewayNamespace: 'urn:any', ...options });
      try {
        await refused(() => call(client), name);
      } finally {
        await client.close();
      }
    });
  }

  it('the outbox stores nothing over the cap (VALIDATION before the journal is written)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'smsgw-cap-'));
    const client = clientWith({ segmentLimits: false });
    const outbox = await Outbox.open({ file: join(dir, 'outbox.jsonl'), send: clientSender(client) });
    try {
      await refused(
        () =>
          outbox.submit('send', 'SendSMS', {
            ...base,
            Recipient: [recipient],
            SMSText: text,
            SmsTyp: 'Standard',
          }),
        /SMSText/,
      );
      assert.equal(outbox.list().length, 0);
      assert.equal(outbox.size, 0);
    } finally {
      await outbox.close();
      await client.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a text of exactly 65,536 characters passes the cap (and meets the segment check instead)', async () => {
    const client = clientWith();
    try {
      const err = await client.send
        .sendSms({
          ...base,
          Recipient: [recipient],
          SMSText: 'a'.repeat(MAX_CONTENT_LENGTH),
          SmsTyp: 'StandardLong',
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      assert.ok(isGatewayError(err));
      assert.equal(err.code, 'VALIDATION');
      assert.match(err.message, /65,536 characters, 429 segments/);
    } finally {
      await client.close();
    }
  });
});
