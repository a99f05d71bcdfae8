/** The panel's small parts: the live note's throttle, number masking, reading a user's permissions. */
import assert from 'node:assert/strict';
import type { Request } from 'express';
import { ManualClock } from '../../helpers/manual-clock';
import { Throttle } from '../../../src/nodes/admin/panel/throttle';
import { maskPhone, shownAs } from '../../../src/nodes/admin/panel/mask';
import { userHolds } from '../../../src/nodes/admin/panel/permissions';
import { registerPanelSection, type PanelContext } from '../../../src/nodes/admin/panel/registry';
import {
  INBOUND_KEPT,
  INBOUND_TEXT_MAX,
  InboundList,
  inboundSection,
  noteInbound,
} from '../../../src/nodes/admin/panel/inbound';
import type { SmsgwConfigNode } from '../../../src/nodes/config/config-node';

describe('panel parts', () => {
  it('the live note: the first change at once, a burst within the second once at its end, none lost', async () => {
    const clock = new ManualClock();
    let fired = 0;
    const t = new Throttle(clock, 1000, () => (fired += 1));
    t.poke();
    assert.equal(fired, 1);
    for (let i = 0; i < 200; i++) {
      clock.t += 4;
      t.poke();
    }
    assert.equal(fired, 1, 'nothing more within the second');
    assert.equal(clock.pending, 1, 'one note waits for the end of the second');
    await clock.advanceTo(clock.next);
    assert.equal(fired, 2);
    clock.t += 5000;
    t.poke();
    assert.equal(fired, 3, 'after a quiet spell: at once again');
    t.poke();
    t.stop();
    assert.equal(clock.pending, 0);
  });

  it('masks a number however it is written, keeps a sender name', () => {
    assert.equal(maskPhone('+491701234567'), '+4917******67');
    assert.equal(maskPhone('00491701234567'), '+4917******67');
    assert.equal(maskPhone('+49 170 1234567'), '+4917******67');
    assert.equal(maskPhone('ACME'), 'ACME');
    assert.equal(shownAs(true)('+491701234567'), '+491701234567');
    assert.equal(shownAs(false)('+491701234567'), '+4917******67');
  });

  it("reads a user's permissions as Node-RED does; no adminAuth (no user) holds all", () => {
    const as = (user: unknown): Request => ({ user }) as unknown as Request;
    assert.equal(userHolds(as(undefined), 'smsgw-config.write'), true);
    assert.equal(userHolds(as({ permissions: '*' }), 'smsgw-config.write'), true);
    assert.equal(userHolds(as({ permissions: 'read' }), 'smsgw-config.write'), false);
    assert.equal(userHolds(as({ permissions: 'read' }), 'smsgw-config.read'), true);
    assert.equal(
      userHolds(as({ permissions: ['flows.read', 'smsgw-config.read'] }), 'smsgw-config.write'),
      false,
    );
    assert.equal(userHolds(as({ permissions: ['smsgw-config.write'] }), 'smsgw-config.write'), true);
    assert.equal(userHolds(as({ permissions: '*.write' }), 'smsgw-config.write'), true);
    assert.equal(userHolds(as({}), 'smsgw-config.write'), false);
  });

  it('a section name is letters only (it is a route part and a renderer name)', () => {
    assert.throws(() => registerPanelSection({ name: '../x', data: () => ({}) }), /lower case letters/);
  });

  it('the inbound list keeps the last 50: the 51st in pushes the oldest out, newest first', () => {
    const list = new InboundList();
    for (let i = 1; i <= INBOUND_KEPT + 1; i++)
      assert.equal(list.note({ key: `k${i}`, at: i, from: '+491701234567', text: `m${i}` }, 'trigger'), true);
    const kept = list.list();
    assert.equal(kept.length, 50);
    assert.equal(kept[0]!.key, 'k51');
    assert.equal(kept[49]!.key, 'k2');
    assert.ok(!kept.some((e) => e.key === 'k1'));
    // Seen again (another listener took it): who took it is added, nothing new is kept.
    assert.equal(list.note({ key: 'k30', at: 30, from: '+491701234567', text: 'm30' }, 'ask'), true);
    assert.equal(list.note({ key: 'k30', at: 30, from: '+491701234567', text: 'm30' }, 'ask'), false);
    assert.equal(list.list().length, 50);
    assert.deepEqual(list.list().find((e) => e.key === 'k30')!.by, ['trigger', 'ask']);
  });

  it('inbound: who took a message, the text cut and made one line, the sender masked unless revealed', () => {
    const config = {} as SmsgwConfigNode;
    const ctx = (reveal: boolean): PanelContext =>
      ({ config, canWrite: reveal, shown: shownAs(reveal), now: 0 }) as unknown as PanelContext;
    const long = `${'x'.repeat(INBOUND_TEXT_MAX + 100)}`;
    const records = [
      { Id: 1, Sender: '+491701234567', Text: 'JA a', Date: new Date(1000) },
      { Id: 2, Sender: '+491701234568', Text: 'hello\n26 Nov - [error] FORGED' },
      { Id: 3, Sender: 'ACME', Text: long },
    ];
    // The ask hub (a first taker) claims the first; the inbound trigger then gets all three with that mark: a
    // claimed reply is the ask node's (the trigger leaves it out unless told to emit replies too).
    noteInbound(
      config,
      records,
      [{ claimedBy: 'smsgw-ask', question: 'a' }, undefined, undefined],
      true,
      5000,
    );
    noteInbound(
      config,
      records,
      [{ claimedBy: 'smsgw-ask', question: 'a' }, undefined, undefined],
      false,
      5000,
    );
    const d = inboundSection.data(ctx(false)) as { messages: Record<string, unknown>[]; max: number };
    assert.equal(d.max, 50);
    assert.deepEqual(
      d.messages.map((m) => [m.from, m.by]),
      [
        ['ACME', ['trigger']],
        ['+4917******68', ['trigger']],
        ['+4917******67', ['ask']],
      ],
    );
    assert.equal(d.messages[2]!.at, 1000, "the gateway's date");
    assert.equal(d.messages[1]!.at, 5000, 'no date: when it was read');
    assert.equal(d.messages[1]!.text, 'hello\\n26 Nov - [error] FORGED');
    assert.equal((d.messages[0]!.text as string).length, INBOUND_TEXT_MAX);
    assert.ok((d.messages[0]!.text as string).endsWith('…'));
    assert.ok(!JSON.stringify(d).includes('1701234567'));
    const full = inboundSection.data(ctx(true)) as { messages: Record<string, unknown>[] };
    assert.equal(full.messages[2]!.from, '+491701234567');
    // Another configuration has its own list.
    assert.deepEqual(
      (inboundSection.data({ ...ctx(false), config: {} as SmsgwConfigNode }) as { messages: unknown[] })
        .messages,
      [],
    );
  });
});
