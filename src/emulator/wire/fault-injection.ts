import { CountedQueue } from './counted-queue';

/** Wire-level misbehaviour for the next N operation requests (see docs/emulator.md). */
export type FaultKind = 'delay' | 'reset' | 'http503' | 'truncate' | 'commitThenDrop';

export const FAULT_KINDS: readonly FaultKind[] = ['delay', 'reset', 'http503', 'truncate', 'commitThenDrop'];

export interface FaultSpec {
  kind: FaultKind;
  /** How many matching requests it applies to (default 1). */
  count?: number;
  /** For `delay`: milliseconds before the request is handled. */
  ms?: number;
  /** Only requests for this operation name (any service). */
  operation?: string;
}

export interface ActiveFault {
  readonly kind: FaultKind;
  remaining: number;
  readonly ms: number;
  readonly operation: string | undefined;
}

export class FaultInjector {
  private readonly queue = new CountedQueue<ActiveFault>();

  /** Validates and queues a fault; throws a TypeError with a readable message on bad input. */
  add(spec: FaultSpec): ActiveFault {
    if (!FAULT_KINDS.includes(spec.kind))
      throw new TypeError(`kind must be one of ${FAULT_KINDS.join(', ')}`);
    const count = spec.count ?? 1;
    if (!Number.isInteger(count) || count < 1) throw new TypeError('count must be a positive integer');
    const ms = spec.ms ?? 0;
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0 || ms > 600_000)
      throw new TypeError('ms must be between 0 and 600000');
    if (spec.operation !== undefined && typeof spec.operation !== 'string')
      throw new TypeError('operation must be a string');
    return this.queue.push({ kind: spec.kind, remaining: count, ms, operation: spec.operation });
  }

  list(): ActiveFault[] {
    return this.queue.list();
  }

  clear(): void {
    this.queue.clear();
  }

  /** Consumes one use of the first fault matching this request, if any. */
  take(operation: string | undefined): ActiveFault | undefined {
    return this.queue.take((f) => f.operation === undefined || f.operation === operation);
  }
}
