/**
 * The hard cap on a message's text and data in the nodes and the editor's routes: a 10 MB text
 * reaches the Catch node as VALIDATION at once, with the segment checks on or off and with the outbox on, and the
 * refusal is O(1): it costs this thread about as much CPU time as refusing a text just over the cap (64 KiB + 1;
 * test/helpers/cpu-cost.ts). Through Node-RED a 4 MB text blocked the runtime 1.2 s at a send node and 1.4 s at
 * the editor's /smsgw/analyze route before: work per character, which makes 10 MiB cost ~160 times as much as
 * 64 KiB. CPU time, not the event loop's blocks, so that a loaded machine does not fail the test.
 */
import assert from 'node:assert/strict';
import type { NodeMessage } from 'node-red';
import { analyzeForEditor, recipientsForEditor } from '../../src/nodes/admin/admin';
import { MAX_CONTENT_LENGTH } from '../../src/text';
import { bigText, leastCpuMs } from '../helpers/cpu-cost';
import { flowWith, helper, loadFlow, send, startEnv, stopEnv, type Env, type FlowNode } from './helpers';
import { sendSmsNode, sendUdhNode } from './send-sms-node';

const TEN_MB = 10 * 1024 * 1024;
/** The shortest content refused. */
const OVER = MAX_CONTENT_LENGTH + 1;
/**
 * Refusing 10 MiB may cost at most this many times the CPU of refusing OVER. O(1) measured 0.4 to 3.7 with eight
 * busy processes on two cores (a refusal through Node-RED costs 0.2 to 3 ms there), ~1 on a quiet machine; one
 * pass over the text at ~1.3 ns a character measured 8 to 25; the analysis the cap stops, ~1,000.
 */
const MOST_RATIO = 10;

/** Refusing 10 MiB cost about what refusing just over the cap did (in CPU time, the least of alternate runs). */
function assertO1(cpu: { big: number; small: number }): void {
  if (process.env.SMSGW_FIGURES)
    console.log(`      CPU: 10 MiB ${cpu.big.toFixed(3)} ms, ${OVER} ${cpu.small.toFixed(3)} ms`);
  assert.ok(
    cpu.big <= MOST_RATIO * cpu.small,
    `refusing 10 MiB cost ${cpu.big.toFixed(2)} ms of CPU, refusing ${OVER} ${cpu.small.toFixed(2)} ms: ` +
      `more than ${MOST_RATIO} times as much, so it reads the content`,
  );
}

describe('nodes: the hard cap on text and data (64 KiB)', function () {
  this.timeout(60_000);
  let env: Env;
  const text = bigText(TEN_MB);
  const over = bigText(OVER);
  before(async () => {
    env = await startEnv();
    env.emu.control.setBalance('demo', 1_000_000);
  });
  after(() => stopEnv(env));
  afterEach(() => helper.unload());

  const jobs = (): number =>
    (env.emu.control.snapshot() as { accounts: { jobs: unknown[] }[] }).accounts.reduce(
      (n, a) => n + a.jobs.length,
      0,
    );

  /** Sends `msg` to n1; the error at the Catch node (nothing at the output). */
  async function refuse(msg: Record<string, unknown>): Promise<{ code?: string; message?: string }> {
    // The first msg at the Catch node or the output, waited for as it comes (not polled: a poll's turns would
    // count too).
    const nodes = ['caught', 'out'].map((id) => helper.getNode(id) as unknown as NodeJS.EventEmitter);
    let first!: (got: [string, NodeMessage]) => void;
    const listeners = ['caught', 'out'].map((id) => (msg: NodeMessage) => first([id, msg]));
    const got = new Promise<[string, NodeMessage]>((resolve, reject) => {
      first = resolve;
      setTimeout(() => reject(new Error('neither an error nor an output within 10 s')), 10_000).unref();
    });
    nodes.forEach((n, i) => n.on('input', listeners[i]!));
    try {
      send('n1', msg);
      const [at, m] = await got;
      assert.equal(at, 'caught', 'nothing output');
      return (m as NodeMessage & { error: { code?: string; message?: string } }).error;
    } finally {
      nodes.forEach((n, i) => n.removeListener('input', listeners[i]!));
    }
  }

  /**
   * Sends `big` (10 MiB of content) and `small` (the same msg just over the cap) to n1, alternately: both are
   * refused with VALIDATION at the Catch node (`big`'s matching `why`), nothing reaches the gateway, and `big`
   * costs at most MOST_RATIO times the CPU of `small`.
   */
  async function refused(
    big: Record<string, unknown>,
    small: Record<string, unknown>,
    why: RegExp,
  ): Promise<void> {
    const before = jobs();
    const errors: { code?: string; message?: string }[] = [];
    const smallErrors: { code?: string; message?: string }[] = [];
    const cpu = await leastCpuMs(
      {
        big: async () => errors.push(await refuse(big)),
        small: async () => smallErrors.push(await refuse(small)),
      },
      9,
    );
    for (const error of errors) {
      assert.equal(error.code, 'VALIDATION', error.message);
      assert.match(error.message ?? '', why);
      assert.match(error.message ?? '', /at most 65,536/);
    }
    for (const error of smallErrors) {
      assert.equal(error.code, 'VALIDATION', error.message);
      assert.match(error.message ?? '', /65,53[78] (characters|bytes), at most 65,536/);
    }
    assert.equal(jobs(), before, 'nothing reached the gateway');
    assertO1(cpu);
  }

  const configs: Array<[string, Record<string, unknown>]> = [
    ['segment checks on', {}],
    ['segment checks off', { segmentsSingle: 0, segmentsLong: 0 }],
    ['outbox on', { outbox: true }],
  ];
  for (const [label, config] of configs) {
    it(`smsgw-send-sms (${label}): a 10 MB text is refused with VALIDATION at once`, async () => {
      await loadFlow(flowWith(env.emu.url, [sendSmsNode()], config));
      await refused(
        { payload: text, topic: 'big' },
        { payload: over, topic: 'big' },
        /message text: 10,485,760 characters/,
      );
    });
  }

  it('smsgw-send-sms: a 10 MB Buffer as the text too', async () => {
    await loadFlow(flowWith(env.emu.url, [sendSmsNode()]));
    await refused(
      { payload: Buffer.alloc(TEN_MB, 0x61) },
      { payload: Buffer.alloc(OVER, 0x61) },
      /10,485,760 bytes/,
    );
  });

  it('smsgw-legacy-send-text: SendText and SMSCR (outbox on)', async () => {
    const legacy = (operation: string): FlowNode => ({
      id: 'n1',
      type: 'smsgw-legacy-send-text',
      gateway: 'cfg',
      operation,
      params: { Recipient: { value: '+4917055555555', type: 'str' }, SmsTyp: { value: '1', type: 'str' } },
      wires: [['out']],
    });
    await loadFlow(flowWith(env.emu.url, [legacy('SendText')], { outbox: true }));
    await refused({ payload: text }, { payload: over }, /SMSText: 10,485,760 characters/);
    await helper.unload();
    await loadFlow(flowWith(env.emu.url, [legacy('SMSCR')]));
    const params = { bRecipient: '+4917055555555' };
    await refused({ payload: text, params }, { payload: over, params }, /Msg: 10,485,760/);
  });

  it('smsgw-send-udh: 10 MB of hex text, and 5 MB of bytes (10 MB of hex)', async () => {
    await loadFlow(flowWith(env.emu.url, [sendUdhNode()]));
    await refused(
      { payload: bigText(TEN_MB, '0') },
      { payload: bigText(OVER, '0') },
      /data: 10,485,760 characters/,
    );
    // Bytes go as hex, two characters a byte.
    await refused(
      { payload: Buffer.alloc(TEN_MB / 2, 1) },
      { payload: Buffer.alloc(Math.ceil(OVER / 2), 1) },
      /data as hex: 10,485,760 characters/,
    );
  });

  it('smsgw-call: a 10 MB SMSText parameter', async () => {
    const call: FlowNode = {
      id: 'n1',
      type: 'smsgw-call',
      gateway: 'cfg',
      service: 'send',
      operation: 'SendSMS',
      auth: 'auto',
      wires: [['out']],
    };
    await loadFlow(flowWith(env.emu.url, [call], { segmentsSingle: 0, segmentsLong: 0 }));
    const payload = (SMSText: string): Record<string, unknown> => ({
      payload: { Recipient: { string: ['+4917012345678'] }, SMSText, SmsTyp: 'Standard' },
    });
    await refused(payload(text), payload(over), /SMSText: 10,485,760 characters/);
  });

  describe('editor routes', () => {
    const FOUR_MB = 4 * 1024 * 1024;

    it('POST smsgw/analyze answers "too large" for a 4 MB text without reading it', async () => {
      await loadFlow(flowWith(env.emu.url, []));
      const res = await helper
        .request()
        .post('/smsgw/analyze')
        .send({ text: bigText(FOUR_MB), operation: 'send/SendSMS', smsType: 'Standard' })
        .expect(200);
      assert.deepEqual(res.body, { tooLarge: { characters: FOUR_MB, max: 65_536 } });
      // The handler alone (the route's body parsing is Node-RED's): O(1) whatever the length.
      const analyze = (t: string) => (): void => {
        for (let i = 0; i < 20; i++)
          analyzeForEditor({ text: t, operation: 'send/SendSMS', smsType: 'Standard', segmentsSingle: 0 });
      };
      assertO1(await leastCpuMs({ big: analyze(text), small: analyze(over) }));
    });

    it('POST smsgw/recipients answers "too large" for a 4 MB recipient text without splitting it', async () => {
      await loadFlow(flowWith(env.emu.url, []));
      const res = await helper
        .request()
        .post('/smsgw/recipients')
        .send({ recipients: bigText(FOUR_MB, '1') })
        .expect(200);
      assert.deepEqual(res.body, { tooLarge: { characters: FOUR_MB, max: 65_536 }, entries: [] });
      const split = (t: string) => (): void => {
        for (let i = 0; i < 20; i++) recipientsForEditor({ recipients: t, defaultCountry: 'DE' });
      };
      assertO1(await leastCpuMs({ big: split(bigText(TEN_MB, '1')), small: split(bigText(OVER, '1')) }));
    });

    it('a text at the cap is still analysed', async () => {
      const a = analyzeForEditor({ text: 'a'.repeat(65_536) }) as { segments: number };
      assert.equal(a.segments, 429);
    });
  });
});
