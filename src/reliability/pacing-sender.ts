/**
 * Pacing per number in front of a send (framework-free): with the outbox, each attempt of an entry reserves its
 * slot under the entry's id (a later attempt finds it again, also after a restart) and is held in the outbox until
 * then; without it, the send waits in memory for its slot (a bounded number at once), or is refused with PACED
 * when the configuration says so.
 */
import { GatewayError } from '../errors';
import type { Clock } from './clock';
import type { OutboxEntry, OutboxSender } from './outbox';
import { PacedError, waitText, type Pacer } from './pacing';

/** Over a number's limits: wait for the slot (in the outbox, or in memory), or refuse with PACED. */
export type PaceMode = 'wait' | 'refuse';

export interface PaceGate {
  readonly pacer: Pacer;
  readonly mode: PaceMode;
  readonly clock: Clock;
  /** The number keys of an entry's recipients ([] for a send that reaches no person: an HLR lookup). */
  keysOf(entry: Readonly<OutboxEntry>): string[];
}

const refused = (wait: number, operation: string | undefined, at: number): PacedError =>
  new PacedError(
    `not sent: a recipient's pacing limits have no room for ${waitText(wait)} (refused, as the gateway configuration's pacing says)`,
    false,
    { retryAt: at, operation },
  );

/** The outbox's sender behind the pacing: an entry whose slot is later is held in the outbox until then. */
export function pacedSender(gate: PaceGate, send: OutboxSender): OutboxSender {
  return async (entry, options) => {
    const keys = gate.keysOf(entry);
    if (keys.length === 0) return send(entry, options);
    const answer = await gate.pacer.reserve({
      id: entry.id,
      keys,
      critical: entry.priority === 'critical',
      onlyNow: gate.mode === 'refuse',
    });
    const now = gate.clock.now();
    if (!answer.reserved) throw refused(answer.at - now, entry.operation, answer.at);
    if (answer.at > now)
      throw new PacedError(
        `held in the outbox for ${waitText(answer.at - now)}: a recipient's pacing limits have no room before`,
        true,
        { retryAt: answer.at, operation: entry.operation },
      );
    const result = await send(entry, options);
    // Sent: the reservation is done (its time stays counted). A failure leaves it: a retry within its grace
    // uses it, a later one gets a new slot.
    gate.pacer.settle(entry.id);
    return result;
  };
}

/**
 * Slots of sends without the outbox: each waits in memory for its slot, at most `max` at once (one more is refused
 * with QUEUE_FULL), and gives its slot back when its caller stops waiting.
 */
export class PaceWaits {
  private waiting = 0;

  constructor(
    private readonly gate: Omit<PaceGate, 'keysOf'>,
    private readonly max: number,
  ) {}

  /** Sends waiting for their slot now. */
  get count(): number {
    return this.waiting;
  }

  /**
   * Reserves the slot of a message under `id` and resolves once it is due (`onWait` is told when it has to wait);
   * rejects with PACED (refusing), QUEUE_FULL, or TIMEOUT when `signal` aborts the wait (the slot is given back).
   */
  async slot(
    id: string,
    keys: readonly string[],
    critical: boolean,
    signal: AbortSignal | undefined,
    operation: string | undefined,
    onWait?: (until: number) => void,
  ): Promise<void> {
    const { pacer, clock, mode } = this.gate;
    const answer = await pacer.reserve({ id, keys, critical, onlyNow: mode === 'refuse' });
    const now = clock.now();
    if (!answer.reserved) throw refused(answer.at - now, operation, answer.at);
    if (answer.at <= now) return;
    if (this.waiting >= this.max) {
      pacer.release(id);
      throw new GatewayError(
        'QUEUE_FULL',
        `not sent: ${this.max} messages already wait for their recipients' pacing (switch on the outbox to keep more)`,
        { operation, ambiguous: false },
      );
    }
    this.waiting++;
    onWait?.(answer.at);
    try {
      await new Promise<void>((resolve, reject) => {
        const onAbort = (): void => {
          clock.clearTimeout(timer);
          reject(
            new GatewayError('TIMEOUT', 'aborted while waiting for a recipient’s pacing slot: not sent', {
              operation,
              ambiguous: false,
            }),
          );
        };
        const timer = clock.setTimeout(
          () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
          Math.max(0, answer.at - now),
        );
        if (signal?.aborted) onAbort();
        else signal?.addEventListener('abort', onAbort, { once: true });
      });
    } catch (e) {
      pacer.release(id);
      throw e;
    } finally {
      this.waiting--;
    }
  }
}
