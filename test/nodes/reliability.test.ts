import assert from 'node:assert/strict';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Node } from 'node-red';
import { GatewayState, startEmulator, type RunningEmulator } from '../../src/emulator';
import {
  ALL_NODES,
  collect,
  DEMO,
  flowWith,
  helper,
  loadFlow,
  nextMessage,
  send,
  sleep,
  startEnv,
  statuses,
  stopEnv,
  waitFor,
  type Env,
  type FlowNode,
} from './helpers';
import { sendSmsNode } from './send-sms-node';

type Rec = Record<string, unknown>;

const sms = (id: string, extra: Rec = {}): FlowNode => sendSmsNode({ id, ...extra });

/** A query jobs node "q" looking a job up by its caption, its output wired to "out2". */
const queryByCaption = (caption: string): FlowNode => ({
  id: 'q',
  type: 'smsgw-query-jobs',
  gateway: 'cfg',
  operation: 'QueryJobInfoByJobCaption',
  params: { Caption: { value: caption, type: 'str' } },
  wires: [['out2']],
});

const sendRequests = (emu: RunningEmulator): number =>
  emu.requests.list().filter((r) => /^Send/.test(r.operation ?? '')).length;

const statusTexts = (id: string): string[] => statuses(id).map((s) => String(s.text ?? ''));

describe('nodes: delivery guarantees (reference, flow control, auth state, validation)', function () {
  this.timeout(20_000);
  let env: Env;
  before(async () => {
    env = await startEnv();
  });
  after(() => stopEnv(env));
  afterEach(() => helper.unload());

  it('reference "prefix" puts it first; "off" sends the caption as given; a query by the caption as sent finds the job (exact and prefix gateways)', async () => {
    await loadFlow(
      flowWith(env.emu.url, [sms('n1'), queryByCaption('prefixed-own')], {
        reference: 'prefix',
        referenceSeparator: ' / ',
      }),
    );
    const out = nextMessage('out');
    send('n1', { payload: 'hello', topic: 'prefixed-own' });
    const p = (await out).payload as Rec;
    assert.match(String(p.caption), /^[a-z2-9]{10} \/ prefixed-own$/);
    await helper.unload();

    await loadFlow(flowWith(env.emu.url, [sms('n1'), queryByCaption('suffixed-own')], { reference: 'off' }));
    const plain = nextMessage('out');
    send('n1', { payload: 'hello', topic: 'suffixed-own' });
    const q = (await plain).payload as Rec;
    assert.equal(q.caption, 'suffixed-own');
    assert.equal(q.reference, undefined);
    await helper.unload();

    // Default (suffix): the caption as sent (msg.payload.caption) finds the job, however the gateway matches.
    const asSent: FlowNode = {
      ...queryByCaption(''),
      params: { Caption: { value: 'payload.caption', type: 'msg' } },
    };
    for (const mode of ['exact', 'prefix'] as const) {
      env.emu.control.setCaptionMatch(mode);
      await loadFlow(flowWith(env.emu.url, [sms('n1', { wires: [['q']] }), asSent]));
      const found = nextMessage('out2');
      send('n1', { payload: 'hello', topic: 'suffixed-own-2' });
      const info = (await found).payload as { Status: string; Job: { Caption: string } };
      assert.equal(info.Status, 'Ok', mode);
      assert.match(info.Job.Caption, /^suffixed-own-2 #[a-z2-9]{10}$/);
      await helper.unload();
    }
    env.emu.control.setCaptionMatch('exact');
  });

  it('a full queue fails at once with QUEUE_FULL at the Catch node; the others are sent; the status shows the queue', async () => {
    await loadFlow(flowWith(env.emu.url, [sms('n1')], { rate: 4, maxConcurrent: 1, maxQueue: 2 }));
    const outs = collect('out');
    const caught = collect('caught');
    for (let i = 0; i < 6; i++) send('n1', { payload: `burst ${i}`, topic: `burst-${i}` });
    await waitFor(() => outs.messages.length + caught.messages.length === 6, 10_000);
    const codes = caught.messages.map((m) => (m.error as { code: string }).code);
    // The bucket starts with one token: one message runs, two wait, three are refused.
    assert.equal(outs.messages.length, 3, `sent ${outs.messages.length}, refused ${codes.join(',')}`);
    assert.deepEqual(codes, ['QUEUE_FULL', 'QUEUE_FULL', 'QUEUE_FULL']);
    assert.match(String((caught.messages[0]!.error as { message: string }).message), /queue is full/);
    await waitFor(() => statusTexts('n1').some((t) => /inflightQueued|queued/.test(t)), 2000);
  });

  it('the any-operation node: a SendSMS goes through flow control like a send node (QUEUE_FULL at once when full)', async () => {
    const call = (i: number): Rec => ({
      payload: {
        Caption: `fc-call-${i}`,
        Sender: '',
        Recipient: ['+4917012345678'],
        SMSText: `burst ${i}`,
        SmsTyp: 'Standard',
        SendDate: null,
      },
    });
    const node: FlowNode = {
      id: 'n1',
      type: 'smsgw-call',
      gateway: 'cfg',
      service: 'send',
      operation: 'SendSMS',
      auth: 'auto',
      wires: [['out']],
    };
    await loadFlow(flowWith(env.emu.url, [node], { rate: 4, maxConcurrent: 1, maxQueue: 2 }));
    const outs = collect('out');
    const caught = collect('caught');
    for (let i = 0; i < 6; i++) send('n1', call(i));
    await waitFor(() => outs.messages.length + caught.messages.length === 6, 10_000);
    const codes = caught.messages.map((m) => (m.error as { code: string }).code);
    assert.equal(outs.messages.length, 3, `sent ${outs.messages.length}, refused ${codes.join(',')}`);
    assert.deepEqual(codes, ['QUEUE_FULL', 'QUEUE_FULL', 'QUEUE_FULL']);
  });

  it('an AUTH failure turns every node of the config red until a call succeeds', async () => {
    await loadFlow(
      flowWith(env.emu.url, [
        sms('n1'),
        sms('n2'),
        { id: 'bal', type: 'smsgw-balance', gateway: 'cfg', wires: [['out2']] },
      ]),
    );
    env.emu.control.lockAccount('demo', true);
    try {
      const caught = nextMessage('caught');
      send('n1', { payload: 'x', topic: 'locked' });
      assert.equal(((await caught).error as { code: string }).code, 'AUTH');
      await waitFor(() => /^auth failed: AccountLocked$/.test(String(statuses('n2').at(-1)?.text)));
      assert.equal(statuses('n2').at(-1)!.fill, 'red');
      assert.match(String(statuses('bal').at(-1)?.text), /^auth failed: AccountLocked$/);
    } finally {
      env.emu.control.lockAccount('demo', false);
    }
    const out = nextMessage('out');
    send('n2', { payload: 'x', topic: 'unlocked' });
    await out;
    await waitFor(() => statuses('n1').at(-1)?.fill !== 'red');
    assert.doesNotMatch(String(statuses('n1').at(-1)?.text), /auth failed/);
  });

  it("a poller's AUTH failure turns the other nodes of its config red too", async () => {
    env.emu.control.lockAccount('demo', true);
    try {
      await loadFlow(
        flowWith(env.emu.url, [
          sms('n1'),
          { id: 'inb', type: 'smsgw-inbound', gateway: 'cfg', interval: 1, wires: [['out2']] },
        ]),
      );
      await waitFor(() => /^auth failed: AccountLocked$/.test(String(statuses('n1').at(-1)?.text)));
      assert.equal(statuses('n1').at(-1)!.fill, 'red');
    } finally {
      env.emu.control.lockAccount('demo', false);
    }
  });

  it('after unlocking, any successful call clears the auth state of every node, pollers included (no wait for their back-off)', async () => {
    env.emu.control.lockAccount('demo', true);
    try {
      await loadFlow(
        flowWith(env.emu.url, [
          sms('n1'),
          // polls at start and fails itself: red "retry in 60 s"
          { id: 'hlr', type: 'smsgw-hlr-results', gateway: 'cfg', interval: 60, wires: [['out2']] },
          // polls on input only: red through the config's auth state
          { id: 'inb', type: 'smsgw-inbound', gateway: 'cfg', interval: 60, inputs: 1, wires: [['out2']] },
        ]),
      );
      await waitFor(() => /retry/.test(String(statuses('hlr').at(-1)?.text)), 10_000);
      assert.equal(statuses('hlr').at(-1)!.fill, 'red');
      await waitFor(() => /^auth failed: AccountLocked$/.test(String(statuses('inb').at(-1)?.text)));
    } finally {
      env.emu.control.lockAccount('demo', false);
    }
    const out = nextMessage('out');
    send('n1', { payload: 'x', topic: 'unlocked' });
    await out;
    // within a few seconds, not the 60 s of the back-off
    await waitFor(() => statuses('hlr').at(-1)?.fill !== 'red', 5000);
    assert.doesNotMatch(String(statuses('hlr').at(-1)?.text), /retry|auth failed/);
    await waitFor(() => statuses('inb').at(-1)?.fill !== 'red', 5000);
  });

  it('an unnamed node goes by its type\'s label in the log (the debug sidebar shows "node: HLR results", not its id)', async () => {
    env.emu.control.lockAccount('demo', true);
    try {
      await helper.load(
        ALL_NODES,
        flowWith(env.emu.url, [
          { id: 'hlr', type: 'smsgw-hlr-results', gateway: 'cfg', interval: 60, wires: [['out2']] },
          { id: 'named', type: 'smsgw-hlr-results', name: 'my HLR', gateway: 'cfg', interval: 60, wires: [] },
        ]),
        { cfg: DEMO },
      );
      const warned = (id: string): Rec | undefined =>
        (helper.log().args as Rec[][])
          .map((a) => a[0]!)
          .find((e) => e.id === id && e.level === 30 && /Poll failed/.test(String(e.msg)));
      await waitFor(() => warned('hlr') !== undefined && warned('named') !== undefined, 10_000);
      assert.equal(warned('hlr')!.name, 'HLR results');
      assert.equal(warned('named')!.name, 'my HLR');
      // every node type has the label it would go by, in every language
      const pkg = JSON.parse(readFileSync(path.join(__dirname, '../../package.json'), 'utf8')) as {
        'node-red': { nodes: Record<string, string> };
      };
      for (const type of Object.keys(pkg['node-red'].nodes)) {
        for (const lang of ['en-US', 'de']) {
          const cat = JSON.parse(
            readFileSync(path.join(__dirname, '../../nodes/locales', lang, `${type}.json`), 'utf8'),
          ) as Record<string, { label: Record<string, unknown> }>;
          const key = type === 'smsgw-call' ? 'palette' : 'default';
          assert.equal(typeof cat[type]!.label[key], 'string', `${lang} ${type}.label.${key}`);
        }
      }
    } finally {
      env.emu.control.lockAccount('demo', false);
    }
  });

  describe('input validation: a VALIDATION error at the Catch node, nothing sent', () => {
    const cases: [string, Rec][] = [
      ['an object as the text', { payload: { text: 'forgot to pick it' }, topic: 'v' }],
      ['a boolean as the text', { payload: true, topic: 'v' }],
      ['an empty text', { payload: '', topic: 'v' }],
      [
        '10,000 recipients',
        {
          payload: 'x',
          recipients: Array.from({ length: 10_000 }, (_, i) => `+49170${String(i).padStart(7, '0')}`),
        },
      ],
      ['an invalid date', { payload: 'x', sendDate: 'next tuesday-ish' }],
      [
        'an invalid date (SendSimpleSMS, date as text)',
        { payload: 'x', sendDate: '2026-13-45', operation: 'SendSimpleSMS' },
      ],
      ['no recipient', { payload: 'x', recipients: [], recipient: '' }],
    ];
    for (const [label, msg] of cases) {
      it(label, async () => {
        await loadFlow(flowWith(env.emu.url, [sms('n1', msg.recipient === '' ? { recipient: '' } : {})]));
        const before = sendRequests(env.emu);
        const caught = nextMessage('caught');
        send('n1', msg);
        const error = (await caught).error as { code: string; message: string };
        assert.equal(error.code, 'VALIDATION', error.message);
        assert.equal(sendRequests(env.emu), before, 'the emulator saw no send request');
      });
    }
  });

  it('warns once at runtime when certificate checks are off for an https gateway', async () => {
    await loadFlow(flowWith('https://127.0.0.1:1', [sms('n1')], { tlsRejectUnauthorized: false }));
    const warnings = helper
      .log()
      .args.map((a: unknown[]) => a[0] as { level: number; msg: unknown })
      .filter(
        (e) =>
          e.level === 30 /* warn */ && /warn\.tlsOff|certificate verification is off/.test(String(e.msg)),
      );
    assert.equal(warnings.length, 1);
  });
});

describe('nodes: durable outbox', function () {
  this.timeout(30_000);
  let state: GatewayState;
  let emu: RunningEmulator | undefined;
  let port = 0;
  let env: { userDir: string };

  const up = async (): Promise<void> => {
    emu = await startEmulator({ backend: state, port, console: false });
    port = emu.port;
  };
  const down = async (): Promise<void> => {
    await emu?.close();
    emu = undefined;
  };

  before(async () => {
    state = new GatewayState({ password: DEMO.password, balance: 1e9, duplicateWindowMs: 0 });
    await up();
    const started = await startEnv();
    await started.emu.close();
    env = started;
    helper.settings({ userDir: env.userDir, smsgwOutboxRetryInterval: 50 } as Record<string, unknown>);
  });
  after(async () => {
    await helper.unload();
    await new Promise<void>((resolve) => helper.stopServer(() => resolve()));
    await down();
    rmSync(env.userDir, { recursive: true, force: true });
    helper.settings({});
  });
  afterEach(() => helper.unload());

  it('keeps a send while the gateway is down (status, admin list, no credentials in the file), sends it once when it is back', async () => {
    const url = `http://127.0.0.1:${port}`;
    await loadFlow(flowWith(url, [sms('n1')], { outbox: true }));
    const direct = nextMessage('out');
    send('n1', { payload: 'while up', topic: 'ob-0' });
    assert.equal(((await direct).payload as Rec).outbox, undefined);

    await down();
    const later = nextMessage('out', 20_000);
    send('n1', { payload: 'while down', topic: 'ob-1' });
    await waitFor(() => statusTexts('n1').some((t) => /status\.kept|kept in outbox/.test(t)), 10_000);
    const file = path.join(env.userDir, 'smsgw-outbox', 'cfg.jsonl');
    assert.ok(existsSync(file));
    const text = readFileSync(file, 'utf8');
    assert.ok(!text.includes(DEMO.password) && !/"password"/i.test(text), 'no credentials in the file');
    const listed = await helper.request().get('/smsgw-config/cfg/outbox').expect(200);
    assert.equal(listed.body.enabled, true);
    assert.equal(listed.body.entries.length, 1);
    assert.equal(listed.body.entries[0].operation, 'SendSMS');
    assert.equal(listed.body.entries[0].caption, 'ob-1');
    assert.ok(!JSON.stringify(listed.body).includes(DEMO.password));

    await up();
    const msg = await later;
    const p = msg.payload as Rec;
    assert.equal(p.outbox, true);
    assert.equal(p.CreateStatus, 'Ok');
    assert.match(String(p.caption), /^ob-1 #/);
    assert.equal(state.jobs().filter((j) => j.caption.startsWith('ob-1 #')).length, 1);
    await waitFor(() => statuses('n1').at(-1)?.fill === 'green');
  });

  it('the any-operation node: a SendSMS waits in the outbox while the gateway is down, and goes once when it is back', async () => {
    const url = `http://127.0.0.1:${port}`;
    const call: FlowNode = {
      id: 'n1',
      type: 'smsgw-call',
      gateway: 'cfg',
      service: 'send',
      operation: 'SendSMS',
      auth: 'auto',
      wires: [['out']],
    };
    await loadFlow(flowWith(url, [call], { outbox: true }));
    await down();
    const later = nextMessage('out', 20_000);
    send('n1', {
      payload: {
        Caption: 'ob-call',
        Sender: '',
        Recipient: { string: ['+4917012345678'] },
        SMSText: 'through the gate',
        SmsTyp: 'Standard',
        SendDate: null,
      },
    });
    await waitFor(() => statusTexts('n1').some((t) => /status\.kept|kept in outbox/.test(t)), 10_000);
    const listed = await helper.request().get('/smsgw-config/cfg/outbox').expect(200);
    assert.deepEqual(
      (listed.body.entries as Rec[]).map((e) => [e.operation, e.caption]),
      [['SendSMS', 'ob-call']],
    );
    await up();
    const p = (await later).payload as Rec;
    assert.equal(p.outbox, true);
    assert.equal((p.Value as Rec).Status, 'Ok');
    assert.match(String(p.caption), /^ob-call #/);
    assert.equal(state.jobs().filter((j) => j.caption.startsWith('ob-call #')).length, 1);
  });

  it('acknowledges a msg (done(): a Complete node fires) once it is durable, before the gateway answers', async () => {
    const url = `http://127.0.0.1:${port}`;
    await loadFlow([
      ...flowWith(url, [sms('n1')], { outbox: true }),
      // x/y: without a position Node-RED files it among the config nodes and misreads its scope list.
      {
        id: 'complete',
        type: 'complete',
        z: 'tab',
        x: 0,
        y: 0,
        scope: ['n1'],
        uncaught: false,
        wires: [['out2']],
      },
    ]);
    await down();
    try {
      const acknowledged = nextMessage('out2', 10_000);
      const later = nextMessage('out', 20_000);
      send('n1', { payload: 'durable first', topic: 'ob-ack' });
      const ack = await acknowledged;
      assert.equal(ack.topic, 'ob-ack');
      const journal = readFileSync(path.join(env.userDir, 'smsgw-outbox', 'cfg.jsonl'), 'utf8');
      assert.ok(journal.includes('"Caption":"ob-ack"'), 'in the journal when the flow hears of it');
      assert.equal(state.jobs().filter((j) => j.caption.startsWith('ob-ack #')).length, 0, 'not sent yet');
      await waitFor(() => statusTexts('n1').some((t) => /status\.kept|kept in outbox/.test(t)), 10_000);
      await up();
      const p = (await later).payload as Rec;
      assert.equal(p.outbox, true);
      assert.equal(state.jobs().filter((j) => j.caption.startsWith('ob-ack #')).length, 1);
    } finally {
      if (!emu) await up();
    }
  });

  it('Clear empties the outbox: its waiting message fails at the Catch node and is never sent', async () => {
    const url = `http://127.0.0.1:${port}`;
    await loadFlow(flowWith(url, [sms('n1')], { outbox: true }));
    await down();
    try {
      const caught = nextMessage('caught', 20_000);
      send('n1', { payload: 'to be cleared', topic: 'ob-clear' });
      await waitFor(() => statusTexts('n1').some((t) => /status\.kept|kept in outbox/.test(t)), 10_000);
      // Clear leaves an entry under way (an attempt against the stopped gateway), and a loaded machine may be
      // in one when the request comes: asked again a moment later, until it clears the entry.
      let cleared = 0;
      for (let i = 0; cleared === 0; i++) {
        assert.ok(i < 50, 'the entry was under way at each of 50 tries');
        if (i > 0) await sleep(100);
        const res = await helper.request().delete('/smsgw-config/cfg/outbox').expect(200);
        cleared = (res.body as { cleared: number }).cleared;
      }
      assert.equal(cleared, 1);
      const error = (await caught).error as { code: string; message: string };
      assert.match(error.message, /removed from the outbox/);
      const listed = await helper.request().get('/smsgw-config/cfg/outbox').expect(200);
      assert.deepEqual(listed.body.entries, []);
    } finally {
      await up();
    }
    assert.equal(state.jobs().filter((j) => j.caption.startsWith('ob-clear')).length, 0);
  });

  // An outbox that cannot be written. The tests run as root, whom chmod does not stop: an outbox directory that cannot be written is
  // made as a regular file where the directory goes (mkdir fails: EEXIST), or a directory replaced by a file.
  const outboxDir = (): string => path.join(env.userDir, 'smsgw-outbox');
  /** The status "outbox unavailable: <why>" (the helper shows i18n keys), not a refused send's own status. */
  const isDown = (t: string | undefined): boolean =>
    /status\.outboxDown$|^outbox unavailable: EEXIST: file already exists$/.test(t ?? '');
  const errorsOf = (id: string): string[] => {
    const n = helper.getNode(id) as unknown as { error: { args: unknown[][]; thisValues: unknown[] } };
    return n.error.args.filter((_a, i) => n.error.thisValues[i] === n).map((a) => String(a[0]));
  };

  /** A send refused at the Catch node with CONFIG naming the directory, and nothing sent. */
  async function refused(id: string, topic: string): Promise<void> {
    const before = sendRequests(emu!);
    const caught = nextMessage('caught');
    send(id, { payload: 'no durable outbox', topic });
    const error = (await caught).error as { code: string; message: string };
    assert.equal(error.code, 'CONFIG');
    assert.match(error.message, /^outbox unavailable: EEXIST/);
    assert.ok(error.message.includes(outboxDir()), `names the directory: ${error.message}`);
    assert.equal(sendRequests(emu!), before, 'not sent without the outbox');
    assert.equal(state.jobs().filter((j) => j.caption.startsWith(topic)).length, 0);
  }

  /** The outbox works again: a send while the gateway is away is kept (on disk), then sent once. */
  async function keptThenSent(id: string, topic: string): Promise<void> {
    await down();
    try {
      const later = nextMessage('out', 20_000);
      send(id, { payload: 'through the outbox again', topic });
      await waitFor(() => statusTexts(id).some((t) => /status\.kept|kept in outbox/.test(t)), 10_000);
      assert.ok(readFileSync(path.join(outboxDir(), 'cfg.jsonl'), 'utf8').includes(`"Caption":"${topic}"`));
      await up();
      const p = (await later).payload as Rec;
      assert.equal(p.outbox, true);
    } finally {
      if (!emu) await up();
    }
    assert.equal(state.jobs().filter((j) => j.caption.startsWith(`${topic} #`)).length, 1);
  }

  it('outbox directory not writable at start: the config node and every send node say so, sends are refused (CONFIG, the directory named) and never sent; writable again, the next send goes through the outbox', async () => {
    rmSync(outboxDir(), { recursive: true, force: true });
    writeFileSync(outboxDir(), 'a file where the outbox directory goes');
    try {
      const url = `http://127.0.0.1:${port}`;
      await loadFlow(flowWith(url, [sms('n1'), sms('n2'), queryByCaption('x')], { outbox: true }));
      await waitFor(() => isDown(statusTexts('n1').at(-1)) && isDown(statusTexts('n2').at(-1)));
      assert.ok(isDown(statusTexts('cfg').at(-1)), 'the config node shows it');
      assert.equal(statuses('cfg').at(-1)?.fill, 'red');
      assert.ok(
        !statusTexts('q').some(isDown),
        'a node that does not send through the outbox is not concerned',
      );
      assert.equal(errorsOf('cfg').length, 1, 'one log line');
      assert.match(errorsOf('cfg')[0]!, /errors\.outboxDown|cannot store messages: EEXIST/);
      const listed = await helper.request().get('/smsgw-config/cfg/outbox').expect(200);
      assert.equal(listed.body.enabled, true);
      assert.match(listed.body.problem, /^EEXIST/);
      await refused('n1', 'ob-down-1');
      await refused('n2', 'ob-down-2');
      assert.ok(isDown(statusTexts('n1').at(-1)));
    } finally {
      rmSync(outboxDir(), { force: true });
    }
    // Checked again on the next send, not only at start.
    await keptThenSent('n1', 'ob-back');
    await waitFor(() => !isDown(statusTexts('n2').at(-1)));
    assert.deepEqual(statuses('cfg').at(-1), {});
    const listed = await helper.request().get('/smsgw-config/cfg/outbox').expect(200);
    assert.equal(listed.body.problem, undefined);
  });

  it('outbox ticked but Node-RED has no user directory: said on the config and send nodes, sends refused (CONFIG) and never sent, not sent without durability', async () => {
    helper.settings({ smsgwOutboxRetryInterval: 50 } as Record<string, unknown>);
    try {
      const url = `http://127.0.0.1:${port}`;
      await loadFlow(flowWith(url, [sms('n1')], { outbox: true }));
      const noDir = (t: string | undefined): boolean =>
        /^outbox unavailable: no user directory$/.test(t ?? '');
      await waitFor(() => noDir(statusTexts('n1').at(-1)));
      assert.ok(noDir(statusTexts('cfg').at(-1)), 'the config node shows it');
      assert.equal(errorsOf('cfg').length, 1, 'one log line');
      assert.match(
        errorsOf('cfg')[0]!,
        /^Node-RED has no user directory \(settings\.userDir\) for the durable outbox's journal/,
      );
      const before = sendRequests(emu!);
      const caught = nextMessage('caught');
      send('n1', { payload: 'no durable outbox', topic: 'ob-nodir' });
      const error = (await caught).error as { code: string; message: string };
      assert.equal(error.code, 'CONFIG');
      assert.match(error.message, /^outbox unavailable: /);
      assert.equal(sendRequests(emu!), before, 'not sent without the outbox');
      assert.equal(state.jobs().filter((j) => j.caption.startsWith('ob-nodir')).length, 0);
    } finally {
      await helper.unload();
      helper.settings({ userDir: env.userDir, smsgwOutboxRetryInterval: 50 } as Record<string, unknown>);
    }
  });

  it('no user directory, outbox off: the config node says once that what its nodes keep lives in memory only; with one it says nothing', async () => {
    const url = `http://127.0.0.1:${port}`;
    const warnsOf = (id: string): string[] => {
      const n = helper.getNode(id) as unknown as { warn: { args: unknown[][]; thisValues: unknown[] } };
      return n.warn.args.filter((_a, i) => n.warn.thisValues[i] === n).map((a) => String(a[0]));
    };
    const memoryOnly =
      /^Node-RED has no user directory \(settings\.userDir\): .*open questions of ask nodes.*budget counts.*in memory only/;
    helper.settings({ smsgwOutboxRetryInterval: 50 } as Record<string, unknown>);
    try {
      await loadFlow(flowWith(url, [sms('n1')], { budgetDay: 100 }));
      assert.deepEqual(
        warnsOf('cfg')
          .filter((w) => /user directory/.test(w))
          .map((w) => memoryOnly.test(w)),
        [true],
        `one warning naming what is kept in memory only: ${warnsOf('cfg').join(' | ')}`,
      );
      const out = nextMessage('out');
      send('n1', { payload: 'still sent', topic: 'mem-only' });
      await out;
    } finally {
      await helper.unload();
      helper.settings({ userDir: env.userDir, smsgwOutboxRetryInterval: 50 } as Record<string, unknown>);
    }
    await loadFlow(flowWith(url, [sms('n1')], { budgetDay: 100 }));
    assert.deepEqual(
      warnsOf('cfg').filter((w) => /user directory/.test(w)),
      [],
    );
  });

  it('outbox directory replaced by a file while the flow runs: refused (CONFIG) until it can be written again, then the outbox is written anew from what it holds', async () => {
    const url = `http://127.0.0.1:${port}`;
    rmSync(outboxDir(), { recursive: true, force: true });
    await loadFlow(flowWith(url, [sms('n1')], { outbox: true }));
    const first = nextMessage('out');
    send('n1', { payload: 'while writable', topic: 'ob-ok' });
    await first;
    const moved = `${outboxDir()}.moved`;
    rmSync(moved, { recursive: true, force: true });
    renameSync(outboxDir(), moved);
    writeFileSync(outboxDir(), 'a file where the outbox directory was');
    try {
      await refused('n1', 'ob-later');
      await waitFor(() => isDown(statusTexts('n1').at(-1)));
      assert.ok(isDown(statusTexts('cfg').at(-1)));
      // Still refused: each send tries again and finds it as it was.
      await refused('n1', 'ob-later-2');
    } finally {
      rmSync(outboxDir(), { force: true });
      rmSync(moved, { recursive: true, force: true });
    }
    await keptThenSent('n1', 'ob-again');
    assert.ok(!isDown(statusTexts('n1').at(-1)));
    assert.deepEqual(statuses('cfg').at(-1), {});
  });

  it('without the option there is no outbox (enabled false; an undeployed config has nothing kept)', async () => {
    await loadFlow(flowWith(`http://127.0.0.1:${port}`, [sms('n1')]));
    const listed = await helper.request().get('/smsgw-config/cfg/outbox').expect(200);
    assert.equal(listed.body.enabled, false);
    const unknown = await helper.request().get('/smsgw-config/nope/outbox').expect(200);
    assert.deepEqual(unknown.body, { enabled: false, deployed: false, entries: [] });
    await helper.request().delete('/smsgw-config/nope/outbox').expect(404);
    assert.ok(helper.getNode('n1') as Node);
  });
});
