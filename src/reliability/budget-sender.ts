/**
 * The spending guard in front of the outbox's sender (framework-free): each attempt of an entry reserves the
 * entry's cost under the entry's id before anything goes out. A reservation made when the message was accepted,
 * or by an earlier attempt whose outcome is unknown, is found again under that id and not counted twice. The
 * reservation is confirmed when the send went out (or was found by its reference), released when it surely did
 * not, and left counted and pending when nobody can know (the next attempt looks the reference up first).
 */
import { findOperation } from '../catalogue';
import { GatewayError } from '../errors';
import type { Budget, SendOutcomeKind } from './budget';
import { sendCost } from './budget-cost';
import type { OutboxSender } from './outbox';
import { EntryTakenOver } from './outbox-store';

/** How a send's failure settles its reservation: surely not sent, or unknown (it stays counted). */
export function outcomeOf(err: unknown): SendOutcomeKind {
  if (err instanceof EntryTakenOver) return 'unknown';
  if (err instanceof GatewayError) return err.ambiguous ? 'unknown' : 'notSent';
  return 'unknown';
}

/** `send` behind the guard `budget()` (which rejects when the guard cannot keep its counts: nothing is sent). */
export function budgetSender(budget: () => Promise<Budget>, send: OutboxSender): OutboxSender {
  return async (entry, options) => {
    const guard = await budget();
    const op = findOperation(entry.service, entry.operation);
    await guard.reserve(entry.id, op ? sendCost(op, entry.params) : 1, {
      critical: entry.priority === 'critical',
      hold: guard.hold,
      service: entry.service,
      operation: entry.operation,
    });
    let result: unknown;
    try {
      result = await send(entry, options);
    } catch (err) {
      // After an attempt that may have reached the gateway, this one's failure proves nothing about that one:
      // the count stays (the safe side; it goes when the entry is settled as sent, or stays).
      guard.settle(entry.id, options.lookupFirst ? 'unknown' : outcomeOf(err), true);
      throw err;
    }
    guard.settle(entry.id, 'sent');
    return result;
  };
}
