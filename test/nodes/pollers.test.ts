import assert from 'node:assert/strict';
import { readStateFile } from '../store/read';
import { existsSync, rmSync } from 'node:fs';
import { createServer, type Server, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import type { Node } from 'node-red';
import { GatewayClient } from '../../src/client';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { RespelledReports } from './respelled-reports';
import {
  collect,
  flowWith,
  helper,
  loadFlow,
  nextMessage,
  send,
  sleep,
  startEnv,
  statuses,
  stopEnv,
  warnings,
  waitFor,
  type Env,
  type FlowNode,
} from './helpers';

/** Sends one SMS per recipient list through the client the config node owns, and returns the JobIds. */
async function sendJobs(url: string, lists: string[][]): Promise<number[]> {
  const client = new GatewayClient({
    baseUrl: url,
    user: 'demo',
    password: 'demo-password',
    maxRecipients: 5000,
  });
  try {
    const ids: number[] = [];
    for (const recipients of lists) {
      const r = await client.send.sendSms({
        Caption: 'dlr-test',
        Sender: '',
        Recipient: recipients,
        SMSText: 'x',
        SmsTyp: 'Standard',
        SendDate: null,
      });
      ids.push(r.JobId);
    }
    return ids;
  } finally {
    await client.close();
  }
}

const numbers = (prefix: string, n: number): string[] =>
  Array.from({ length: n }, (_, i) => `+49170${prefix}${String(i).padStart(5, '0')}`);

describe('nodes: polling triggers', () => {
  let env: Env;
  before(async () => {
    env = await startEnv();
    env.emu.control.setBalance('demo', 1_000_000);
  });
  after(() => stopEnv(env));
  afterEach(() => helper.unload());

  const poller = (type: string, extra: Record<string, unknown> = {}): FlowNode => ({
    id: 'p1',
    type,
    gateway: 'cfg',
    interval: 60,
    inputs: 1,
    wires: [['out']],
    ...extra,
  });

  async function trigger(): Promise<void> {
    const done = new Promise<void>((resolve) => {
      (helper.getNode('p1') as Node).once('call:status', () => undefined);
      setTimeout(resolve, 0);
    });
    send('p1', { payload: 'poll' });
    await done;
  }

  /** Triggers one poll and returns what it emitted (after the node's status shows it finished). */
  async function pollOnce(): Promise<Record<string, unknown>[]> {
    const got = collect('out');
    const before = statuses('p1').length;
    await trigger();
    // A 5,000-report page takes seconds on a loaded 2-core machine (CI ran it at load 15+ and timed out at 5 s):
    // the wait is a bound for a hang, not a speed check.
    await waitFor(
      () =>
        statuses('p1')
          .slice(before)
          .some((s) => s.fill !== 'blue'),
      60_000,
    );
    await sleep(20);
    got.stop();
    return got.messages;
  }

  describe('smsgw-inbound', () => {
    it('emits one msg per received SMS with text, sender and the record; nothing twice', async () => {
      await loadFlow(flowWith(env.emu.url, [poller('smsgw-inbound')]));
      env.emu.control.injectInbound({ from: '+4917012300001', text: 'STOP' });
      env.emu.control.injectInbound({ from: '+4917012300002', text: 'Hello back' });
      const first = await pollOnce();
      assert.deepEqual(
        first.map((m) => [m.payload, m.topic, m.recipient]),
        [
          ['STOP', '+4917012300001', '+4917012300001'],
          ['Hello back', '+4917012300002', '+4917012300002'],
        ],
      );
      assert.equal(typeof (first[0]!.sms as { Id: number }).Id, 'number');
      assert.deepEqual(await pollOnce(), []);
    });

    it('reads GetNewRecivedSMS2 when the config uses the older service', async () => {
      await loadFlow(flowWith(env.emu.url, [poller('smsgw-inbound')], { service: 'legacy' }));
      env.emu.control.injectInbound({ from: '+4917012300003', text: 'legacy inbound' });
      const got = await pollOnce();
      assert.equal(got.length, 1);
      assert.equal(got[0]!.payload, 'legacy inbound');
      assert.equal(got[0]!.from, '+4917012300003');
    });

    /** A message and a record flagged Report = 1 (presumed a status report), in that order. */
    const injectMessageAndReport = (tag: string): void => {
      env.emu.control.injectInbound({ from: '+4917012300010', text: `${tag} message` });
      env.emu.control.injectInbound({ from: '+4917012300011', text: `${tag} report`, report: true });
    };
    const shown = (got: Record<string, unknown>[]): unknown[][] => got.map((m) => [m.payload, m.report]);

    for (const service of ['gateway', 'legacy']) {
      it(`emits every record by default, flagged ones too, with msg.report saying which (${service})`, async () => {
        await loadFlow(flowWith(env.emu.url, [poller('smsgw-inbound', { dropReports: false })], { service }));
        injectMessageAndReport(service);
        assert.deepEqual(shown(await pollOnce()), [
          [`${service} message`, 0],
          [`${service} report`, 1],
        ]);
        assert.deepEqual(warnings('p1'), []);
      });
    }

    it('a node without the setting (imported from a file) emits every record too', async () => {
      await loadFlow(flowWith(env.emu.url, [poller('smsgw-inbound')]));
      injectMessageAndReport('plain');
      assert.deepEqual(shown(await pollOnce()), [
        ['plain message', 0],
        ['plain report', 1],
      ]);
    });

    it('"Drop records flagged Report = 1" (opt-in) leaves them out, without a warning', async () => {
      await loadFlow(flowWith(env.emu.url, [poller('smsgw-inbound', { dropReports: true })]));
      injectMessageAndReport('opt-in');
      assert.deepEqual(shown(await pollOnce()), [['opt-in message', 0]]);
      assert.deepEqual(warnings('p1'), []);
    });

    it('a node saved by an earlier version (includeReports: false) keeps dropping them and warns once', async () => {
      await loadFlow(flowWith(env.emu.url, [poller('smsgw-inbound', { includeReports: false })]));
      injectMessageAndReport('old-1');
      assert.deepEqual(shown(await pollOnce()), [['old-1 message', 0]]);
      injectMessageAndReport('old-2');
      assert.deepEqual(shown(await pollOnce()), [['old-2 message', 0]]);
      const warned = warnings('p1');
      assert.equal(warned.length, 1, warned.join('\n'));
      assert.match(
        warned[0]!,
        /^Dropped a record flagged Report = 1 \(presumed a status report\): this node was saved by an earlier version/,
      );
    });

    it('a node saved by an earlier version with includeReports: true emits them', async () => {
      await loadFlow(flowWith(env.emu.url, [poller('smsgw-inbound', { includeReports: true })]));
      injectMessageAndReport('old-on');
      assert.deepEqual(shown(await pollOnce()), [
        ['old-on message', 0],
        ['old-on report', 1],
      ]);
    });

    it('in interval mode polls right after deploy', async () => {
      env.emu.control.injectInbound({ from: '+4917012300004', text: 'at start' });
      const flow = flowWith(env.emu.url, [poller('smsgw-inbound', { inputs: 0 })]);
      await loadFlow(flow);
      const msg = await nextMessage('out');
      assert.equal(msg.payload, 'at start');
    });
  });

  describe('smsgw-dlr', () => {
    it('emits each report once, across a restart (state in userDir)', async () => {
      const flow = flowWith(env.emu.url, [poller('smsgw-dlr')]);
      await loadFlow(flow);
      await pollOnce(); // reports of earlier tests' jobs, if any
      const [jobA] = await sendJobs(env.emu.url, [numbers('1', 3)]);
      env.emu.control.finishJobs();
      const first = await pollOnce();
      assert.deepEqual(
        first
          .filter((m) => m.jobId === jobA)
          .map((m) => (m.payload as { Recipient: string }).Recipient)
          .sort(),
        numbers('1', 3),
      );
      const stateFile = path.join(env.userDir, 'smsgw-state', 'smsgw-dlr.p1.json');
      assert.ok(existsSync(stateFile));
      assert.ok((readStateFile(stateFile) as { cursor: string }).cursor);

      await helper.unload(); // a restart: new node objects, state only from the file
      await loadFlow(flow);
      assert.deepEqual(await pollOnce(), [], 'nothing is emitted twice after a restart');

      const [jobB] = await sendJobs(env.emu.url, [numbers('2', 2)]);
      env.emu.control.finishJobs();
      const after = await pollOnce();
      assert.deepEqual(
        after.map((m) => m.jobId),
        [jobB, jobB],
      );
    });

    it('a "modified nodes" redeploy restarts the poller without repeating or losing reports', async () => {
      const flow = flowWith(env.emu.url, [poller('smsgw-dlr')]);
      await loadFlow(flow);
      await pollOnce();
      const [jobA] = await sendJobs(env.emu.url, [numbers('7', 2)]);
      env.emu.control.finishJobs();
      assert.deepEqual(
        (await pollOnce()).map((m) => m.jobId),
        [jobA, jobA],
      );

      const changed = flow.map((n) => (n.id === 'p1' ? { ...n, name: 'renamed' } : n));
      await helper.setFlows(changed, 'nodes', { cfg: { user: 'demo', password: 'demo-password' } });
      assert.equal((helper.getNode('p1') as unknown as { name: string }).name, 'renamed');
      const [jobB] = await sendJobs(env.emu.url, [numbers('8', 1)]);
      env.emu.control.finishJobs();
      assert.deepEqual(
        (await pollOnce()).map((m) => m.jobId),
        [jobB],
      );
    });

    it('"final states only" leaves out the states known not to be final (Not final)', async () => {
      await loadFlow(
        flowWith(env.emu.url, [
          poller('smsgw-dlr', { finalOnly: true, finalStates: 'DELIVERED', pendingStates: 'EXPIRED' }),
        ]),
      );
      await pollOnce();
      const [ok, gone] = numbers('3', 2) as [string, string];
      env.emu.control.setSubscriberState(gone, 'unreachable');
      const [job] = await sendJobs(env.emu.url, [[ok, gone]]);
      env.emu.control.finishJobs();
      const got = await pollOnce();
      assert.deepEqual(
        got
          .filter((m) => m.jobId === job)
          .map((m) => [(m.payload as { Recipient: string }).Recipient, m.statusKind]),
        [[ok, 'final']],
      );
    });

    describe('report states the lists do not know (the spec shows none)', () => {
      let odd: RunningEmulator<RespelledReports>;
      before(async () => {
        odd = await startEmulator({ backend: new RespelledReports({ balance: 1000 }), console: false });
      });
      after(() => odd.close());

      /** One job to these numbers, whose reports carry the given statuses; the trigger's msgs for it. */
      async function reportsFor(finalOnly: boolean, statuses: string[]): Promise<unknown[][]> {
        // Another gateway: the report ids this node saw from the shared emulator mean nothing here.
        rmSync(path.join(env.userDir, 'smsgw-state', 'smsgw-dlr.p1.json'), { force: true });
        await loadFlow(flowWith(odd.url, [poller('smsgw-dlr', { finalOnly })]));
        const recipients = statuses.map((_, i) => `+4917055500${String(i).padStart(3, '0')}`);
        recipients.forEach((r, i) => odd.state.statusOf.set(r, statuses[i]!));
        const [job] = await sendJobs(odd.url, [recipients]);
        odd.control.finishJobs();
        const got = await pollOnce();
        return got
          .filter((m) => m.jobId === job)
          .map((m) => [(m.payload as { Status: string }).Status, m.statusKind]);
      }

      it('"final states only" still emits a report whose state is in neither list, and warns once per state', async () => {
        const got = await reportsFor(true, ['DELIVERED', 'ENROUTE', 'WEIRD', 'DELIVRD', 'WEIRD']);
        assert.deepEqual(got, [
          ['DELIVERED', 'final'],
          ['WEIRD', 'unknown'],
          ['DELIVRD', 'final'],
          ['WEIRD', 'unknown'],
        ]);
        const warned = warnings('p1');
        assert.equal(warned.length, 1, warned.join('\n'));
        assert.equal(
          warned[0],
          'Report status "WEIRD" is in neither Final states nor Not final: passed on with msg.statusKind = "unknown". Add it to one of the two lists to decide what it means.',
        );
      });

      it('without "final states only" every report is emitted with its statusKind, no warning', async () => {
        const got = await reportsFor(false, ['ACCEPTD', 'WEIRD', 'UNDELIV']);
        assert.deepEqual(got, [
          ['ACCEPTD', 'pending'],
          ['WEIRD', 'unknown'],
          ['UNDELIV', 'final'],
        ]);
        assert.deepEqual(warnings('p1'), []);
      });
    });

    it('follows pages past 5000 reports in one poll, without duplicates', async function () {
      this.timeout(120_000);
      await loadFlow(flowWith(env.emu.url, [poller('smsgw-dlr')]));
      await pollOnce();
      const ids: number[] = [];
      for (let i = 0; i < 6; i++) {
        ids.push(...(await sendJobs(env.emu.url, [numbers(`4${i}`, 1000)])));
        env.emu.control.advance(2000); // each job's reports at their own instant
      }
      const got = await pollOnce();
      const ours = got.filter((m) => ids.includes(m.jobId as number));
      assert.equal(ours.length, 6000);
      assert.equal(new Set(ours.map((m) => (m.payload as { Id: number }).Id)).size, 6000);
      assert.deepEqual(await pollOnce(), []);
    });

    it('more than 5000 reports at one instant: warns, steps over it and is not stuck', async function () {
      this.timeout(120_000);
      await loadFlow(flowWith(env.emu.url, [poller('smsgw-dlr')]));
      await pollOnce();
      const ids = await sendJobs(
        env.emu.url,
        [0, 1, 2, 3, 4, 5].map((i) => numbers(`5${i}`, 1000)),
      );
      env.emu.control.finishJobs(); // 6000 reports with the very same date
      const got = await pollOnce();
      assert.equal(got.filter((m) => ids.includes(m.jobId as number)).length, 5000);
      const node = helper.getNode('p1') as unknown as { warn: { args: unknown[][] } };
      assert.match(
        String(node.warn.args.at(-1)![0]),
        /^More than 5000 delivery reports carry the date \d{4}-\d\d-\d\dT[\d:.]+Z: the service cannot page past them, the rest of that instant is skipped$/,
      );
      env.emu.control.advance(2000);
      const [later] = await sendJobs(env.emu.url, [numbers('6', 1)]);
      env.emu.control.finishJobs();
      const next = await pollOnce();
      assert.deepEqual(
        next.map((m) => m.jobId),
        [later],
      );
    });
  });

  describe('smsgw-hlr-results', () => {
    it('emits each new HLR result once', async () => {
      const client = new GatewayClient({ baseUrl: env.emu.url, user: 'demo', password: 'demo-password' });
      await loadFlow(flowWith(env.emu.url, [poller('smsgw-hlr-results')]));
      await pollOnce();
      await client.send.sendHlr({ Caption: 'hlr', Recipient: '+4917055500001,+4917055500002' });
      await client.close();
      env.emu.control.finishJobs();
      const got = await pollOnce();
      assert.deepEqual(got.map((m) => m.topic).sort(), ['+4917055500001', '+4917055500002']);
      assert.deepEqual(await pollOnce(), []);
    });
  });

  describe('a collecting read whose answer was lost', () => {
    // A gateway and a state of each test's own: a recovery reads every message of the last minutes, and takes
    // those another test's node collected for lost ones (it assumes one reader per account).
    let own: RunningEmulator;
    let outer: RunningEmulator;
    beforeEach(async () => {
      own = await startEmulator({ port: 0 });
      own.control.setBalance('demo', 1_000_000);
      outer = env.emu;
      env.emu = own;
      for (const type of ['smsgw-inbound', 'smsgw-hlr-results']) {
        rmSync(path.join(env.userDir, 'smsgw-state', `${type}.p1.json`), { force: true });
        rmSync(path.join(env.userDir, 'smsgw-state', `${type}-reader.cfg.json`), { force: true });
      }
    });
    afterEach(async () => {
      await helper.unload();
      env.emu = outer;
      await own.close();
      // The readers' state (seen ids of this gateway) means nothing to the next test's gateway.
      for (const type of ['smsgw-inbound', 'smsgw-hlr-results'])
        rmSync(path.join(env.userDir, 'smsgw-state', `${type}-reader.cfg.json`), { force: true });
    });
    /** The config node's log: it owns the reader, which logs the recoveries. */
    const logs = (): string[] => {
      const node = helper.getNode('cfg') as unknown as { log: { args: unknown[][]; thisValues: unknown[] } };
      return node.log.args.filter((_a, i) => node.log.thisValues[i] === node).map((a) => String(a[0]));
    };

    it('inbound: read again at once without collecting; the messages come once, the status and log say so', async () => {
      await loadFlow(flowWith(env.emu.url, [poller('smsgw-inbound')]));
      env.emu.control.injectInbound({ from: '+4917012366001', text: 'before' });
      assert.deepEqual(
        (await pollOnce()).map((m) => m.payload),
        ['before'],
      );
      env.emu.control.injectInbound({ from: '+4917012366002', text: 'lost 1' });
      env.emu.control.injectInbound({ from: '+4917012366003', text: 'lost 2' });
      // The gateway collects them, then the connection drops before the answer.
      env.emu.faults.add({ kind: 'commitThenDrop', operation: 'QueryReceivedNewSMS' });
      const caught = collect('caught');
      assert.deepEqual(
        (await pollOnce()).map((m) => m.payload),
        ['lost 1', 'lost 2'],
      );
      caught.stop();
      assert.equal(caught.messages.length, 0, 'recovered: nothing for the Catch node');
      assert.ok(statuses('p1').some((s) => /\b2 new, 2 recovered\b/.test(String(s.text))));
      assert.equal(
        logs().filter((l) => /was lost: 2 records recovered with QueryReceivedSMSByJobCaption/.test(l))
          .length,
        1,
      );
      assert.deepEqual(await pollOnce(), [], 'not again');
    });

    it('a recovery read that fails: warned once, made at the next polls until it works', async () => {
      await loadFlow(flowWith(env.emu.url, [poller('smsgw-inbound')]));
      await pollOnce();
      env.emu.control.injectInbound({ from: '+4917012366011', text: 'lost, found later' });
      env.emu.faults.add({ kind: 'truncate', operation: 'QueryReceivedNewSMS' });
      env.emu.faults.add({ kind: 'http503', operation: 'QueryReceivedSMSByJobCaption', count: 2 });
      assert.deepEqual(await pollOnce(), []);
      env.emu.control.injectInbound({ from: '+4917012366012', text: 'new meanwhile' });
      assert.deepEqual(
        (await pollOnce()).map((m) => m.payload),
        ['new meanwhile'],
        'the queue is read all the same',
      );
      assert.deepEqual(
        (await pollOnce()).map((m) => m.payload),
        ['lost, found later'],
      );
      assert.equal(
        warnings('cfg').filter((w) =>
          /the read that recovers it \(QueryReceivedSMSByJobCaption\) failed/.test(w),
        ).length,
        1,
      );
      assert.deepEqual(await pollOnce(), []);
    });

    it('HLR results: the HLR jobs since shortly before are asked for their results, each result once', async () => {
      const client = new GatewayClient({ baseUrl: env.emu.url, user: 'demo', password: 'demo-password' });
      await loadFlow(flowWith(env.emu.url, [poller('smsgw-hlr-results')]));
      await client.send.sendHlr({ Caption: 'hlr', Recipient: '+4917055566001' });
      env.emu.control.finishJobs();
      assert.deepEqual(
        (await pollOnce()).map((m) => m.topic),
        ['+4917055566001'],
      );
      await client.send.sendHlr({ Caption: 'hlr', Recipient: '+4917055566002,+4917055566003' });
      await client.close();
      env.emu.control.finishJobs();
      env.emu.faults.add({ kind: 'commitThenDrop', operation: 'QueryNewHLRJobs' });
      assert.deepEqual((await pollOnce()).map((m) => m.topic).sort(), ['+4917055566002', '+4917055566003']);
      assert.deepEqual(await pollOnce(), []);
    });
  });

  describe('failures', () => {
    let hanging: Server;
    let hangingUrl: string;
    const open: IncomingMessage[] = [];
    let closedSockets = 0;
    before(async () => {
      hanging = createServer((req) => {
        open.push(req);
        req.socket.on('close', () => closedSockets++);
      });
      await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', () => r()));
      hangingUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`;
    });
    after(async () => {
      hanging.closeAllConnections();
      await new Promise<void>((r) => hanging.close(() => r()));
    });

    it('a failing poll (interval mode) shows red, logs a warning and the poller keeps trying', async () => {
      await loadFlow(flowWith('http://127.0.0.1:9', [poller('smsgw-inbound', { inputs: 0, interval: 1 })]));
      const node = helper.getNode('p1') as unknown as { warn: { callCount: number; args: unknown[][] } };
      await waitFor(() => node.warn.callCount >= 2, 8000);
      assert.match(
        String(node.warn.args[0]![0]),
        /^Poll failed \(1 in a row\), next try in \d+ s: QueryReceivedNewSMS: .*ECONNREFUSED/,
      );
      assert.ok(statuses('p1').some((s) => s.fill === 'red'));
    });

    it('a failing triggered poll goes to Catch with the trigger msg', async () => {
      await loadFlow(flowWith('http://127.0.0.1:9', [poller('smsgw-dlr')]));
      const caught = nextMessage('caught');
      send('p1', { payload: 'poll', marker: 7 });
      const msg = await caught;
      assert.equal(msg.marker, 7);
      assert.ok(['NETWORK', 'TIMEOUT'].includes((msg.error as { code: string }).code));
    });

    it('stopping the flow aborts the poll in flight (a read that does not collect)', async () => {
      await loadFlow(
        flowWith(hangingUrl, [poller('smsgw-dlr', { inputs: 0 })], {
          timeout: 600,
          gatewayNamespace: 'https://gateway.smsgw.example/',
        }),
      );
      await waitFor(() => open.length >= 1, 10_000).catch(() => assert.fail('no request reached the server'));
      const closedBefore = closedSockets;
      await helper.unload();
      await waitFor(() => closedSockets > closedBefore, 10_000);
    });
  });
});
