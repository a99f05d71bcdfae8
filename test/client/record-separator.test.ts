import assert from 'node:assert/strict';
import { GatewayClient, type Transport } from '../../src/client';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { GatewayError } from '../../src/errors';
import { Stub } from './stub';

const USER = 'demo';
const PASSWORD = 'demo-password';
const CAPTIONS = ['first', 'second one', 'third', 'fourth'];

// GetJobs1 / GetGetJobsWithStatusResult append the caller's Trennzeichen after each record. Client and emulator
// must agree on it (docs/assumptions.md), whatever the caller types: each job comes back as its own record.
describe('client: GetJobs1 record separators (Trennzeichen) against the emulator', () => {
  let emu: RunningEmulator;
  let ids: number[] = [];
  before(async () => {
    emu = await startEmulator({ user: USER, password: PASSWORD, balance: 1000, duplicateWindowMs: 0 });
    const client = new GatewayClient({ baseUrl: emu.url, user: USER, password: PASSWORD, reference: false });
    try {
      ids = [];
      for (const caption of CAPTIONS) {
        const r = await client.legacy.sendText2({
          Caption: caption,
          Sender: 'Tester',
          Recipient: '+4917012345678',
          SMSText: 'x',
          SmsTyp: '1',
          SendDate: '',
        });
        ids.push(Number(r.id));
      }
    } finally {
      await client.close();
    }
  });
  after(() => emu.close());

  const separators: Array<[string, string]> = [
    [';', ';'],
    ['|', '|'],
    ['a newline', '\n'],
    ['a tab', '\t'],
    ['\\n typed as text', '\\n'],
    ['\\t typed as text', '\\t'],
    ['\\r\\n typed as text', '\\r\\n'],
  ];
  for (const transport of ['soap11', 'get'] as Transport[]) {
    describe(`over ${transport}`, () => {
      let client: GatewayClient;
      before(() => {
        client = new GatewayClient({ baseUrl: emu.url, user: USER, password: PASSWORD, transport });
      });
      after(() => client.close());

      for (const [name, Trennzeichen] of separators) {
        for (const operation of ['getJobs1', 'getGetJobsWithStatusResult'] as const) {
          it(`${operation} with ${name}: every job is its own record`, async () => {
            const r = await client.legacy[operation]({ StartDate: '', EndDate: '', Trennzeichen, JobId: '' });
            const records = r.records as Array<{ jobId: number; caption: string }>;
            assert.deepEqual(
              records.map((x) => [x.jobId, x.caption]),
              ids.map((id, i) => [id, CAPTIONS[i]]),
              JSON.stringify(r.raw),
            );
          });
        }
      }
    });
  }
});

describe('client: a Trennzeichen that cannot be split safely is refused before sending', () => {
  let stub: Stub;
  let client: GatewayClient;
  before(async () => {
    stub = await new Stub().start();
    client = new GatewayClient({
      baseUrl: stub.url,
      user: 'u',
      password: 'secret-pw',
      legacyNamespace: 'urn:l',
    });
  });
  after(async () => {
    await client.close();
    await stub.stop();
  });

  for (const Trennzeichen of [
    'x',
    'END',
    '0',
    ' ',
    '.',
    ',',
    ':',
    '-',
    '/',
    '+',
    '\\x',
    '\\',
    ';;',
    'a;',
    '\u0001',
    'ä',
  ]) {
    it(`refuses ${JSON.stringify(Trennzeichen)} with VALIDATION`, async () => {
      await assert.rejects(
        client.legacy.getJobs1({ StartDate: '', EndDate: '', Trennzeichen, JobId: '' }),
        (e: unknown) =>
          e instanceof GatewayError &&
          e.code === 'VALIDATION' &&
          e.operation === 'GetJobs1' &&
          /Trennzeichen/.test(e.message),
      );
      assert.equal(stub.seen.length, 0, 'nothing was sent');
    });
  }

  it('sends a newline for an empty Trennzeichen, and the escapes as the characters they stand for', async () => {
    stub.handler = (_req, res) => res.writeHead(500).end();
    const sent = async (Trennzeichen: string): Promise<string> => {
      stub.seen.length = 0;
      const params = { StartDate: '', EndDate: '', JobId: '', Trennzeichen };
      await client.call('legacy', 'GetJobs1', params).catch(() => undefined);
      return /<Trennzeichen>([^<]*)<\/Trennzeichen>/.exec(stub.seen[0]?.body ?? '')?.[1] ?? '(none)';
    };
    assert.equal(await sent(''), '\n');
    assert.equal(await sent('\\t'), '\t');
    assert.equal(await sent('|\\r\\n'), '|&#xD;\n');
    assert.equal(await sent(';'), ';');
  });

  it('refuses such a legacySeparator when the client is made (CONFIG)', () => {
    assert.throws(
      () => new GatewayClient({ baseUrl: stub.url, user: 'u', password: 'p', legacySeparator: 'END' }),
      (e: unknown) => e instanceof GatewayError && e.code === 'CONFIG' && /legacySeparator/.test(e.message),
    );
  });
});
