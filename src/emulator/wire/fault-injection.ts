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
  private readonly queue: ActiveFault[] = [];

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
    const fault: ActiveFault = { kind: spec.kind, remaining: count, ms, operation: spec.operation };
    this.queue.push(fault);
    return fault;
  }

  list(): ActiveFault[] {
    return this.queue.map((f) => ({ ...f }));
  }

  clear(): void {
    this.queue.length = 0;
  }

  /** Consumes one use of the first fault matching this request, if any. */
  take(operation: string | undefined): ActiveFault | undefined {
    const i = this.queue.findIndex((f) => f.operation === undefined || f.operation === operation);
    if (i < 0) return undefined;
    const fault = this.queue[i] as ActiveFault;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.queue.splice(i, 1);
    return { ...fault };
  }
}
