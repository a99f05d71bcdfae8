/** What the send gate reads of a message's parameters (src/nodes/send/gate-params.ts). */
import assert from 'node:assert/strict';
import { findOperation } from '../../src/catalogue';
import { recipientsOf, typedParams } from '../../src/nodes/send/gate-params';

describe('send gate: the parameters it reads', () => {
  it('recipients for the opt-out check, split as the spending guard counts them', () => {
    assert.deepEqual(recipientsOf({ Recipient: '+491, +492\r+493|+494' }), ['+491', '+492', '+493', '+494']);
    assert.deepEqual(recipientsOf({ Recipient: ['+491', '+492;+493'] }), ['+491', '+492', '+493']);
    assert.deepEqual(recipientsOf({ Recipient: { string: ['+491', '+492'] } }), ['+491', '+492']);
    // SMSCR: UTF-8 bytes, or their base64 text (as invoke() and the outbox hold them).
    assert.deepEqual(recipientsOf({ bRecipient: Buffer.from('+491\n+492') }), ['+491', '+492']);
    assert.deepEqual(recipientsOf({ bRecipient: Buffer.from('+491,+492').toString('base64') }), [
      '+491',
      '+492',
    ]);
    assert.deepEqual(recipientsOf({ SMSText: 'no recipient' }), []);
  });

  it("a list written as invoke()'s child elements becomes the list the typed client takes; nothing else changes", () => {
    const op = findOperation('send', 'SendSMS')!;
    const given = { Recipient: { string: ['+491', '+492'] }, SMSText: 'x', Caption: 'c' };
    assert.deepEqual(typedParams(op, given), { Recipient: ['+491', '+492'], SMSText: 'x', Caption: 'c' });
    assert.deepEqual(typedParams(op, { Recipient: { string: '+491' } }).Recipient, ['+491']);
    const plain = { Recipient: ['+491'], SMSText: 'x' };
    assert.equal(typedParams(op, plain), plain);
    // Another shape is left for the typed client to refuse with a clear message.
    assert.deepEqual(typedParams(op, { Recipient: { item: ['+491'] } }).Recipient, { item: ['+491'] });
  });
});
