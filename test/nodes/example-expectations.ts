/**
 * What each example flow is meant to show, checked after every inject of it was pressed once: how many msgs
 * each debug node (by name) must get, and what those msgs and the emulator's jobs must hold.
 */
import assert from 'node:assert/strict';
import type { NodeMessage } from 'node-red';
import { GatewayClient } from '../../src/client';
import { DEMO, emulatedJob, type EmulatedJob, type Env } from './helpers';

export type Seen = (debugName: string) => Array<NodeMessage & Record<string, unknown>>;

export interface ExampleExpectation {
  /** Debug node name -> how many msgs it must show (0: none). */
  counts: Record<string, number>;
  /** Set up before deploying (the test emulator is shared: balance, an inbound message). */
  before?(env: Env): void;
  /** Runs before the inject of this name is pressed (what a user may have done meanwhile). */
  beforePressing?: Record<string, (env: Env) => Promise<void>>;
  /**
   * After the inject of this name was pressed: what must have happened before the next one is pressed (it reads
   * what this one left), waited for (up to 10 s). A fixed pause between presses could end first on a loaded machine.
   */
  afterPressing?: Record<string, (seen: Seen) => boolean>;
  /**
   * What the example does that no debug node shows (an SMS sent by an ask node), waited for (up to 10 s) beside
   * the counts: a fixed pause missed it on a loaded machine, where the ask node's durable write takes longer.
   */
  until?(env: Env): boolean;
  /** What the example is meant to show. */
  shows(seen: Seen, env: Env): void;
}

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v !== null && typeof v === 'object' ? (v as Rec) : {});
const payloadOf = (seen: Seen, name: string, i = 0): Rec => rec(seen(name)[i]?.payload);

/** The emulator's job behind a send result's JobId (the send must have created it). */
function jobOf(env: Env, result: Rec): EmulatedJob {
  assert.ok(Number(result.JobId) > 0, `no JobId in ${JSON.stringify(result)}`);
  const job = emulatedJob(env, result.JobId);
  assert.ok(job, `the emulator has no job ${String(result.JobId)}`);
  return job;
}

/** The freezer alarm's questions the ask node sent (as the emulator has them). */
function questionsAsked(env: Env): EmulatedJob[] {
  const snap = env.emu.control.snapshot() as { accounts: { jobs: EmulatedJob[] }[] };
  return snap.accounts
    .flatMap((a) => a.jobs)
    .filter((j) => j.text.startsWith('Freezer too warm: -9 C') && j.text.includes('\nReply'));
}

/** A send result whose caption (as sent) is the flow's caption plus the config's reference. */
function assertCaptionAsSent(result: Rec, job: EmulatedJob, flowCaption: string): void {
  assert.equal(job.caption, result.caption, 'the caption as sent is the one the gateway got');
  assert.match(String(result.caption), new RegExp(`^${flowCaption} #[a-z0-9]{10}$`));
}

export const EXPECTED: Record<string, ExampleExpectation> = {
  'Freezer alarm over MQTT': {
    // "-18 C" then "-9 C", published through the broker as the sensor would: -9 is above the limit
    counts: { sent: 1, errors: 0 },
    shows(seen, env) {
      const sent = payloadOf(seen, 'sent');
      const job = jobOf(env, sent);
      assert.equal(job.text, 'Freezer too warm: -9 C (alarm above -12 C)');
      assert.deepEqual(job.recipients, ['+4917012345678']);
      assertCaptionAsSent(sent, job, 'home/freezer/temperature');
    },
  },
  'Freezer alarm with acknowledgement': {
    // "-18 C" then "-9 C": the alarm asks the first number of the on-call list (steps of 5 minutes: nobody
    // answers within the test, so no output says anything)
    counts: {
      acknowledged: 0,
      'nobody answered: raise the alarm elsewhere': 0,
      'resolved: log it': 0,
      errors: 0,
    },
    until: (env) => questionsAsked(env).length > 0,
    shows(_seen, env) {
      const asked = questionsAsked(env);
      assert.equal(asked.length, 1, 'one question');
      assert.deepEqual(asked[0]!.recipients, ['+4917012345678'], 'to the first number of the list');
      assert.equal(asked[0]!.text, 'Freezer too warm: -9 C (alarm above -12 C)\nReply 1a=ok 2a=busy 3a=done');
      assert.match(asked[0]!.caption, /^home\/chest-freezer\/temperature #[a-z0-9]{10}$/);
    },
  },
  'Alarm to SMS': {
    counts: { sent: 1, 'send failed': 0 },
    shows(seen, env) {
      const sent = payloadOf(seen, 'sent');
      const job = jobOf(env, sent);
      assert.equal(job.text, 'ALARM: pump 3 stopped at station North');
      assert.deepEqual(job.recipients, ['+4917012345678', '+4917087654321']);
      assert.equal(job.sender, 'Plant');
      assertCaptionAsSent(sent, job, 'alarm-pump-3');
    },
  },
  'Auto-reply to inbound SMS': {
    counts: { received: 1, 'reply sent': 1 },
    before(env) {
      env.emu.control.injectInbound({ from: '+4917011112222', text: 'STATUS' });
    },
    shows(seen, env) {
      const received = seen('received').find((m) => m.payload === 'STATUS');
      assert.ok(received, 'the inbound message reaches the flow');
      assert.equal(received.recipient, '+4917011112222');
      const job = jobOf(env, payloadOf(seen, 'reply sent'));
      assert.deepEqual(job.recipients, ['+4917011112222'], 'the reply goes back to the sender');
      assert.equal(job.text, 'Thanks, we got your message: STATUS');
    },
  },
  'Delivery tracking': {
    counts: { sent: 1, 'job, reports, replies': 1, 'send a tracked SMS first': 0, errors: 0 },
    // "look up job" reads the caption the send left in the flow context.
    afterPressing: { 'send tracked SMS': (seen) => seen('sent').length > 0 },
    beforePressing: {
      // Another flow sent an SMS after the tracked one: the lookup must still show the tracked job.
      'look up job': async (env) => {
        const client = new GatewayClient({ baseUrl: env.emu.url, ...DEMO });
        try {
          await client.send.sendSms({
            Caption: 'another flow',
            Sender: '',
            Recipient: ['+4917033334444'],
            SMSText: 'hi',
            SmsTyp: 'Standard',
            SendDate: null,
          });
        } finally {
          await client.close();
        }
      },
    },
    shows(seen, env) {
      const sent = payloadOf(seen, 'sent');
      const job = jobOf(env, sent);
      assertCaptionAsSent(sent, job, 'tracked-1');
      // "look up job" shows the job just sent: found by its caption as sent, not some other job.
      const info = payloadOf(seen, 'job, reports, replies');
      assert.equal(info.Status, 'Ok', JSON.stringify(info));
      assert.equal(rec(info.Job).Id, sent.JobId);
      assert.equal(rec(info.Job).Caption, sent.caption);
    },
  },
  'Balance watch': {
    counts: { balance: 1, 'alert sent': 1 },
    before(env) {
      env.emu.control.setBalance('demo', 10); // below the threshold (20)
    },
    shows(seen, env) {
      const balance = payloadOf(seen, 'balance');
      assert.equal(balance.balance, 10);
      assert.equal(balance.low, true);
      assert.equal(balance.threshold, 20);
      const job = jobOf(env, payloadOf(seen, 'alert sent'));
      assert.deepEqual(job.recipients, ['+4917012345678']);
      assert.equal(job.text, 'SMS balance low: 10 credits');
    },
  },
  'Sensor heartbeat': {
    counts: { 'alarm sent': 1, 'back sent': 1 },
    afterPressing: {
      // Quiet for 5 seconds after its reading: overdue, the SMS to the admin sent (before the next press).
      'freezer reports': (seen) => seen('alarm sent').length === 1,
    },
    shows(seen, env) {
      const alarm = jobOf(env, payloadOf(seen, 'alarm sent'));
      assert.deepEqual(alarm.recipients, ['+4917012345678']);
      assert.match(alarm.text, /^Freezer sensor quiet since \d{4}-\d\d-\d\dT/);
      const back = jobOf(env, payloadOf(seen, 'back sent'));
      assert.equal(back.text, 'Freezer sensor reports again');
      // The back came after the alarm, once: the alarm's SMS is the older job.
      assert.ok(back.id > alarm.id);
    },
  },
  'HLR check before sending': {
    counts: { sent: 1, 'not reachable': 0 },
    shows(seen, env) {
      const sent = seen('sent')[0]!;
      assert.equal(sent.recipient, '+4917012345678');
      const job = jobOf(env, rec(sent.payload));
      assert.deepEqual(
        job.recipients,
        ['+4917012345678'],
        'sent to the number the HLR check found reachable',
      );
      assert.equal(job.text, 'Your appointment is confirmed for tomorrow 10:00.');
    },
  },
  'Binary, legacy and customer operations': {
    counts: { 'UDH result': 1, 'legacy result': 1, customers: 1, errors: 0 },
    shows(seen, env) {
      // SendUDH's answer has no JobId: the job is the one with the caption as sent.
      const udhResult = payloadOf(seen, 'UDH result');
      assert.equal(udhResult.ParseStatus, 'Ok');
      const byCaption = env.emu.state.jobs().filter((j) => j.caption === udhResult.caption);
      assert.equal(byCaption.length, 1, `jobs with caption ${String(udhResult.caption)}`);
      const udh = jobOf(env, { JobId: byCaption[0]!.id });
      assert.equal(udh.binData.toUpperCase(), '0605040B8423F0DC0601AE02056A0045C60C033132372E302E302E3100');
      const legacy = payloadOf(seen, 'legacy result');
      assert.match(String(legacy.raw), /^OK \d+$/, JSON.stringify(legacy));
      const job = jobOf(env, { JobId: Number(legacy.JobId) });
      assert.equal(job.text, 'Hello from the older service');
      const customers = seen('customers')[0]!.payload;
      assert.ok(Array.isArray(customers) && customers.length > 0, JSON.stringify(customers));
    },
  },
  'Any operation': {
    counts: { jobs: 1, balance: 1, errors: 0 },
    shows(seen, env) {
      const jobs = rec(seen('jobs')[0]!.payload).Value;
      assert.ok(Array.isArray(jobs), JSON.stringify(seen('jobs')[0]!.payload));
      // The jobs of the last day: every job the shared emulator holds was made by these tests just now.
      const ids = (jobs as Rec[]).map((j) => Number(j.Id)).sort((a, b) => a - b);
      const held = (env.emu.state.jobs() as Array<{ id: number }>).map((j) => j.id);
      assert.deepEqual(ids, held);
      const balance = rec(seen('balance')[0]!.payload);
      const account = (env.emu.control.snapshot() as { accounts: Array<{ account: Rec }> }).accounts[0]!;
      assert.equal(Number(balance.Value), account.account.balance, JSON.stringify(balance));
    },
  },
  'Customer replies STOP': {
    // The CRM's side: the customer is added, offered to (refused), checked, removed. (The STOP reply's side needs a
    // read of the configuration's reader, at its own interval: test/nodes/optout.test.ts shows it.)
    counts: {
      'CRM update': 0,
      'list changed': 1,
      sent: 0,
      refused: 1,
      'on the list?': 1,
      'list changed back': 1,
    },
    afterPressing: {
      'CRM: customer unsubscribed': (seen) => seen('list changed').length > 0,
      'offer to the customer': (seen) => seen('refused').length > 0,
      'is the customer on the list?': (seen) => seen('on the list?').length > 0,
    },
    shows(seen) {
      const added = payloadOf(seen, 'list changed');
      assert.deepEqual(
        [added.action, added.changed, rec((added.numbers as Rec[])[0]).source],
        ['add', 1, 'flow'],
      );
      assert.equal(rec(seen('refused')[0]!.error).code, 'OPTED_OUT');
      const checked = payloadOf(seen, 'on the list?');
      assert.deepEqual([checked.action, checked.optedOut], ['check', 1]);
      const removed = payloadOf(seen, 'list changed back');
      assert.deepEqual([removed.action, removed.changed], ['remove', 1]);
    },
  },
  'Spending guard': {
    // 8 alarms against a daily limit of 10: all go out; the warning at 80 % (8 of 10), then the count asked for.
    counts: { sent: 8, refused: 0, budget: 2 },
    // "count now" must see the 8 sends counted: the warning at 8 of 10 says they are.
    afterPressing: { 'flapping sensor: 8 alarms': (seen) => seen('budget').length >= 1 },
    shows(seen, env) {
      const texts = seen('sent').map((m) => jobOf(env, rec(m.payload)).text);
      assert.deepEqual(
        texts.sort(),
        Array.from({ length: 8 }, (_, i) => `Freezer too warm (alarm ${i + 1})`),
      );
      const [warning, count] = seen('budget');
      assert.equal(warning!.topic, 'budget/warning');
      const w = rec(warning!.payload);
      assert.deepEqual([w.event, w.window, w.count, w.limit, w.percent], ['warning', 'day', 8, 10, 80]);
      const windows = rec(count!.payload).windows as Rec[];
      assert.deepEqual(
        windows.map((x) => [x.window, x.count, x.limit]),
        [['day', 8, 10]],
      );
    },
  },
};
