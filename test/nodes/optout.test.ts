/**
 * The opt-out list in Node-RED against the emulator: STOP / START / HELP replies read by the configuration's
 * reader (exact keywords only) change the list before the inbound trigger hands them on with msg.optOut; a send
 * to a number on the list leaves it out before any request (the others are sent, a Catch node hears OPTED_OUT),
 * critical or not; the list survives a restart; a lost list refuses every send until a person confirms it.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { NodeAPI } from 'node-red';
import type { NextFunction, Request, Response } from 'express';
import {
  ALL_NODES,
  DEMO,
  collect,
  flowWith,
  helper,
  loadFlow,
  pollUntil,
  send,
  startEnv,
  stopEnv,
  waitFor,
  type Env,
  type FlowNode,
} from './helpers';
import { sendSmsNode } from './send-sms-node';

type Rec = Record<string, unknown>;

const A = '+4917011110001';
const B = '+4917011110002';
const C = '+4917011110003';

describe('nodes: opt-out list (Opt-out tab): STOP replies, and sends that leave the number out', function () {
  this.timeout(60_000);
  let env: Env;
  before(async () => {
    env = await startEnv();
  });
  after(() => stopEnv(env));
  afterEach(() => helper.unload());

  const inbound: FlowNode = {
    id: 'inb',
    type: 'smsgw-inbound',
    gateway: 'cfg',
    interval: 60,
    inputs: 1,
    wires: [['out2']],
  };
  const sender = (recipient: string): FlowNode => sendSmsNode({ recipient });
  const flow = (recipient = `${A},${B}`, config: Rec = {}): FlowNode[] =>
    flowWith(env.emu.url, [inbound, sender(recipient)], { optOut: true, ...config });

  const inject = (from: string, text: string): void => {
    env.emu.control.injectInbound({ from, text });
  };
  const sendRequests = (): number => env.emu.requests.list().filter((r) => r.operation === 'SendSMS').length;
  const lastJobRecipients = (): string[] => {
    const snap = env.emu.control.snapshot() as { accounts: { jobs: { recipients: string[] }[] }[] };
    return snap.accounts.flatMap((a) => a.jobs).at(-1)?.recipients ?? [];
  };
  const code = (m: Rec): unknown => (m.error as Rec | undefined)?.code;

  it('a reply that is exactly a keyword changes the list and is marked on the inbound msg; "please stop" is not one', async () => {
    await loadFlow(flow());
    const replies = collect('out2');
    inject(A, ' Stop! ');
    inject(B, 'please stop');
    inject(C, 'HILFE');
    inject(B, 'STOP 12345');
    await pollUntil('inb', () => replies.messages.length === 4);
    assert.deepEqual(
      replies.messages.map((m) => [m.payload, m.optOut]),
      [
        [' Stop! ', 'added'],
        ['please stop', undefined],
        ['HILFE', 'help'],
        ['STOP 12345', undefined],
      ],
    );
    const res = await helper.request().get('/smsgw-config/cfg/optout').expect(200);
    assert.equal((res.body as Rec).count, 1);
  });

  it('a send to a number on the list: the others are sent, the number is left out before any request, OPTED_OUT to Catch', async () => {
    // A is on the list from the test before (the list is durable: a new deploy reads it back).
    await loadFlow(flow(`${A},${B}`));
    const out = collect('out');
    const caught = collect('caught');
    send('n1', { payload: 'freezer warm', topic: 'partly' });
    await waitFor(() => out.messages.length === 1 && caught.messages.length === 1);
    assert.deepEqual(lastJobRecipients(), [B]);
    assert.deepEqual((out.messages[0]!.payload as Rec).skipped, [A]);
    assert.equal(code(caught.messages[0]!), 'OPTED_OUT');
    assert.match(String((caught.messages[0]!.error as Rec).message), /the others were sent.*\+4917\*+01/);
  });

  it('with the outbox on: the number on the list is left out before the outbox takes the message, OPTED_OUT to Catch', async () => {
    // A is on the list (the first test).
    await loadFlow(flow(`${A},${B}`, { outbox: true }));
    const out = collect('out');
    const caught = collect('caught');
    send('n1', { payload: 'through the outbox', topic: 'partly-outbox' });
    await waitFor(() => out.messages.length === 1 && caught.messages.length === 1);
    assert.deepEqual(lastJobRecipients(), [B]);
    assert.deepEqual((out.messages[0]!.payload as Rec).skipped, [A]);
    assert.equal(code(caught.messages[0]!), 'OPTED_OUT');
  });

  it('every recipient on the list, critical or not: nothing is sent (no request), OPTED_OUT', async () => {
    await loadFlow(flow(A));
    const out = collect('out');
    const caught = collect('caught');
    const before = sendRequests();
    send('n1', { payload: 'fire!', topic: 'critical', priority: 'critical' });
    send('n1', { payload: 'fire?', topic: 'normal' });
    await waitFor(() => caught.messages.length === 2);
    assert.equal(out.messages.length, 0);
    assert.deepEqual(caught.messages.map(code), ['OPTED_OUT', 'OPTED_OUT']);
    assert.equal(sendRequests(), before, 'no request was made');
  });

  it('START takes the number off the list: it is sent to again', async () => {
    await loadFlow(flow(A));
    const replies = collect('out2');
    inject(A, 'start');
    await pollUntil('inb', () => replies.messages.length === 1);
    assert.equal(replies.messages[0]!.optOut, 'removed');
    const out = collect('out');
    const caught = collect('caught');
    send('n1', { payload: 'welcome back', topic: 'back' });
    await waitFor(() => out.messages.length === 1);
    assert.equal(caught.messages.length, 0);
    assert.deepEqual(lastJobRecipients(), [A]);
  });

  it('the list off (the default): a STOP is handed on without a mark and changes nothing', async () => {
    await loadFlow(flowWith(env.emu.url, [inbound, sender(C)]));
    const replies = collect('out2');
    inject(C, 'STOP');
    await pollUntil('inb', () => replies.messages.length === 1);
    assert.equal(replies.messages[0]!.optOut, undefined);
    const out = collect('out');
    send('n1', { payload: 'x', topic: 'off' });
    await waitFor(() => out.messages.length === 1);
    const res = await helper.request().get('/smsgw-config/cfg/optout').expect(200);
    assert.deepEqual(res.body, { enabled: false });
  });

  it('a damaged list file: every send is refused (CONFIG) until a person confirms the list in the editor', async () => {
    const dir = path.join(env.userDir, 'smsgw-state');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'optout.cfg-lost.json'), '{"version":1,"entries":{"49170\n', 'utf8');
    const lostFlow = flowWith(env.emu.url, [{ ...sender(C), gateway: 'cfg-lost' }], {
      id: 'cfg-lost',
      optOut: true,
    }).map((n) => (n.type === 'smsgw-config' ? { ...n, id: 'cfg-lost' } : n));
    await loadFlow(lostFlow, { 'cfg-lost': { user: 'demo', password: 'demo-password' } });
    const out = collect('out');
    const caught = collect('caught');
    const before = sendRequests();
    send('n1', { payload: 'x', topic: 'lost' });
    await waitFor(() => caught.messages.length === 1);
    assert.equal(code(caught.messages[0]!), 'CONFIG');
    assert.match(String((caught.messages[0]!.error as Rec).message), /opt-out list was lost/);
    assert.equal(sendRequests(), before);
    const shown = await helper.request().get('/smsgw-config/cfg-lost/optout').expect(200);
    assert.ok((shown.body as Rec).lost, JSON.stringify(shown.body));
    const confirmed = await helper.request().post('/smsgw-config/cfg-lost/optout/confirm').expect(200);
    assert.equal((confirmed.body as Rec).lost, undefined);
    send('n1', { payload: 'x', topic: 'confirmed' });
    await waitFor(() => out.messages.length === 1);
    assert.deepEqual(lastJobRecipients(), [C]);
  });

  it('an ask node skips an on-call number on the list: the next number is asked at once, a Catch node hears OPTED_OUT', async () => {
    const first = '+4917011110011';
    const second = '+4917011110012';
    const asker: FlowNode = {
      id: 'ask',
      type: 'smsgw-ask',
      gateway: 'cfg',
      question: 'payload',
      questionType: 'msg',
      numbers: `${first}, ${second}`,
      numbersType: 'str',
      wait: 60,
      waitUnit: 's',
      rounds: 1,
      ack: '1',
      pass: '2',
      tell: 'none',
      interval: 60,
      wires: [['out'], ['out']],
    };
    // A configuration of its own: the ask hub, a first taker of its reader, is remembered there after this test.
    const own = flowWith(
      env.emu.url,
      [
        { ...inbound, gateway: 'cfg-ask' },
        { ...asker, gateway: 'cfg-ask' },
      ],
      {
        id: 'cfg-ask',
        optOut: true,
      },
    ).map((n) => (n.type === 'smsgw-config' ? { ...n, id: 'cfg-ask' } : n));
    await loadFlow(own, { 'cfg-ask': DEMO });
    const replies = collect('out2');
    inject(first, 'STOP');
    await pollUntil('inb', () => replies.messages.length === 1);
    assert.equal(replies.messages[0]!.optOut, 'added');
    const caught = collect('caught');
    const toFirst = (): number =>
      (env.emu.control.snapshot() as { accounts: { jobs: { recipients: string[] }[] }[] }).accounts
        .flatMap((a) => a.jobs)
        .filter((j) => j.recipients.includes(first)).length;
    send('ask', { payload: 'Freezer too warm', topic: 'freezer' });
    // A step of a minute: the second number is asked because the first was skipped, not because a step ended.
    await waitFor(() => lastJobRecipients().includes(second) && caught.messages.length === 1);
    assert.equal(toFirst(), 0, 'nothing was sent to the number on the list');
    const err = caught.messages[0]!;
    assert.equal(code(err), 'OPTED_OUT');
    assert.equal((err.ask as Rec).to, first);
  });

  it('CSV round trip through the admin routes: export, import (BOM, ";"), all or nothing with the bad line named', async () => {
    await loadFlow(flow(C));
    const empty = await helper.request().get('/smsgw-config/cfg/optout/export').expect(200);
    assert.match(String(empty.headers['content-type']), /^text\/csv/);
    const imported = await helper
      .request()
      .post('/smsgw-config/cfg/optout/import')
      .send({ csv: `\uFEFFnumber;state;since;source\r\n${C};opted-out;2026-01-02T03:04:05Z;reply\r\n` })
      .expect(200);
    assert.deepEqual(imported.body, { imported: 1 });
    const refused = await helper
      .request()
      .post('/smsgw-config/cfg/optout/import')
      .send({ csv: `number,state\n+4917011110099,opted-out\nnot a number,opted-out\n` })
      .expect(400);
    assert.match(String((refused.body as Rec).message), /^line 3: .* nothing was imported$/);
    const exported = await helper.request().get('/smsgw-config/cfg/optout/export').expect(200);
    const rows = String(exported.text).trim().split('\r\n');
    assert.ok(rows.includes(`${C},opted-out,2026-01-02T03:04:05.000Z,reply`), rows.join('|'));
    assert.ok(!rows.some((r) => r.startsWith('+4917011110099')), 'the refused file changed nothing');
    // The imported number is refused by the send gate.
    const caught = collect('caught');
    send('n1', { payload: 'x', topic: 'imported' });
    await waitFor(() => caught.messages.length === 1);
    assert.equal(code(caught.messages[0]!), 'OPTED_OUT');
  });

  it('the editor routes need their rights: the list and its export smsgw-config.read, import and confirm smsgw-config.write', async () => {
    const granted = new Set<string>();
    const withAuth = (RED: NodeAPI): void => {
      // The helper's RED.auth lets everything through; this one behaves like adminAuth for one user.
      (RED as unknown as { auth: unknown }).auth = {
        needsPermission: (permission: string) => (_req: Request, res: Response, next: NextFunction) =>
          granted.has(permission) ? next() : res.status(401).end(),
      };
    };
    await helper.load([withAuth, ...ALL_NODES], flow(C), { cfg: DEMO });
    const csv = { csv: `${C},opted-in` };
    await helper.request().get('/smsgw-config/cfg/optout').expect(401);
    await helper.request().get('/smsgw-config/cfg/optout/export').expect(401);
    granted.add('smsgw-config.read');
    await helper.request().get('/smsgw-config/cfg/optout').expect(200);
    await helper.request().get('/smsgw-config/cfg/optout/export').expect(200);
    await helper.request().post('/smsgw-config/cfg/optout/import').send(csv).expect(401);
    await helper.request().post('/smsgw-config/cfg/optout/confirm').expect(401);
    granted.add('smsgw-config.write');
    await helper.request().post('/smsgw-config/cfg/optout/import').send(csv).expect(200);
    await helper.request().post('/smsgw-config/cfg/optout/confirm').expect(200);
  });

  it('answers on: a STOP is confirmed once a day (also to a number now on the list), HELP answered, through the gate', async () => {
    const d = '+4917011110021';
    const e = '+4917011110022';
    await loadFlow(flow(C, { optOutAnswer: true, optOutHelpText: 'Call 0800 123' }));
    const replies = collect('out2');
    const jobsTo = (n: string): { text: string; recipients: string[] }[] =>
      (
        env.emu.control.snapshot() as { accounts: { jobs: { text: string; recipients: string[] }[] }[] }
      ).accounts
        .flatMap((a) => a.jobs)
        .filter((j) => j.recipients.includes(n));
    inject(d, 'STOP');
    await pollUntil('inb', () => replies.messages.length === 1);
    await waitFor(() => jobsTo(d).length === 1);
    assert.match(jobsTo(d)[0]!.text, /no more messages|optOut\.answer\.stop/);
    // The same day: a second STOP is taken (marked) but not answered again; HELP from another number is.
    inject(d, 'stop');
    inject(e, 'help');
    await pollUntil('inb', () => replies.messages.length === 3);
    await waitFor(() => jobsTo(e).length === 1);
    assert.equal(jobsTo(e)[0]!.text, 'Call 0800 123');
    assert.equal(jobsTo(d).length, 1, 'one answer per number per day');
    assert.deepEqual(
      replies.messages.map((m) => m.optOut),
      ['added', 'added', 'help'],
    );
  });
});
