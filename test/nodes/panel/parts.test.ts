/** The panel's small parts: the live note's throttle, number masking, reading a user's permissions. */
import assert from 'node:assert/strict';
import type { Request } from 'express';
import { ManualClock } from '../../helpers/manual-clock';
import { Throttle } from '../../../src/nodes/admin/panel/throttle';
import { maskPhone, shownAs } from '../../../src/nodes/admin/panel/mask';
import { userHolds } from '../../../src/nodes/admin/panel/permissions';
import { registerPanelSection } from '../../../src/nodes/admin/panel/registry';

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
});
