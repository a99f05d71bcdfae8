/**
 * Reading a queue the gateway empties as it answers (QueryReceivedNewSMS, GetNewRecivedSMS2, QueryNewHLRJobs), and
 * getting back what an answer that was lost held. Such a read marks its records collected when the
 * gateway answers: if the answer never arrives (a timeout, a reset, a cut answer), nothing can read them again
 * from the queue. The service offers reads that do not collect (messages since a date, the HLR results of a job):
 * after a read whose answer may have been lost, the records since shortly before the newest one collected are read
 * that way, and those not handed on before (by key) are handed on, once.
 *
 * What those reads return for a date and an empty caption is not shown in the spec: docs/assumptions.md says what
 * we chose, and settings.js can change it (recoverySettings). A recovery read that fails is tried again at every
 * poll (the queue is read all the same) until it succeeds, or is given up after RECOVERY_GIVE_UP_MS. Nothing here
 * imports Node-RED.
 */
import { isGatewayError } from '../../errors';
import { SeenIds } from './seen-ids';

/** A recovery that keeps failing is given up after this long (the caller warns). */
export const RECOVERY_GIVE_UP_MS = 86_400_000;

/** The part of a trigger's state this keeps (saved with it). */
export interface CollectedState {
  /** Keys of the records handed on recently, oldest first. */
  seen: string[];
  /** The newest record date collected, ISO (the gateway's clock): a recovery reads from shortly before it. */
  newest?: string;
  /** An answer was lost and its records not recovered yet: read from `from` (ISO); first lost at `since` (ms). */
  recover?: { from: string; since: number };
  /**
   * A collecting read was in flight when this was written (since `at`, ms): the note is written durably before the
   * read is sent and dropped when its records are staged. Found by whoever reads next (the same node after a
   * restart, the next lease holder), it means the holder may have been killed between the gateway's answer and the
   * stage: a recovery read from `from` (ISO) runs first (absorbNote). `by`: the lease token of the holder that
   * wrote it and `id` the read's batch marker (coordinated only: a holder cut off from Redis may still stage the
   * read later, so the next holder claims the marker before it recovers, and the late stage then writes nothing).
   */
  reading?: { from: string; at: number; by?: string; id?: string };
}

export interface CollectingQueue<R> {
  /** The read that collects (it may throw; an ambiguous failure may have collected records). */
  collect(): Promise<R[]>;
  /** The records since `from`, read without collecting them. */
  recover(from: Date): Promise<R[]>;
  /** Tells records apart: the same record read by either read gives the same key. */
  key(record: R): string;
  /** The record's date in ms (the gateway's clock), if it has one. */
  dateOf(record: R): number | undefined;
}

export interface RecoveryOptions {
  /** false: an answer lost stays lost (as in earlier versions), with a warning. */
  enabled: boolean;
  /** A recovery reads from this long before the newest record collected (or before now, when none was). */
  windowMs: number;
  now(): number;
}

export interface CollectedRead<R> {
  /** Records not handed on before: the recovered ones first, then the queue's, in the gateway's order. */
  records: R[];
  state: CollectedState;
  /** Records that only a recovery read found (the lost answer held them, or the queue still holds them). */
  recovered: number;
  /** A recovery read was made in this poll (and succeeded). */
  recoveries: number;
  /**
   * The collecting read failed and what it may have collected is not recovered (yet): the records and state above
   * are still to be kept, then the poll counts as failed.
   */
  failure?: unknown;
  /** The collecting read's answer was lost and a recovery read at once got its records back. */
  lost?: unknown;
  /** A recovery read failed (it is tried again at the next poll). */
  recoveryError?: unknown;
  /** The recovery was given up (failing for RECOVERY_GIVE_UP_MS): what the lost answer held is lost. */
  gaveUp?: boolean;
  /** An answer was lost and recovery is off. */
  lostWithoutRecovery?: boolean;
}

/**
 * The note to write durably before a collecting read is sent (see CollectedState.reading): a recovery from it reads
 * what a lost answer of this read held, as readCollected would after a failed read.
 */
export function readingNote(
  state: CollectedState,
  options: Pick<RecoveryOptions, 'windowMs' | 'now'>,
  holder?: { by: string; id: string },
): NonNullable<CollectedState['reading']> {
  const saved = state.newest ? Date.parse(state.newest) : NaN;
  const now = options.now();
  const from = new Date((Number.isNaN(saved) ? now : saved) - options.windowMs).toISOString();
  return { from, at: now, ...holder };
}

/**
 * The state as the next read starts from it: a note of a read in flight (left by a run that ended before the read's
 * records were staged) becomes a recovery to run first. `staged`: the read's records were staged all the same (the
 * caller found its batch marker set), the note is dropped.
 */
export function absorbNote(state: CollectedState, now: number, staged = false): CollectedState {
  const { reading, ...rest } = state;
  if (!reading || typeof reading !== 'object' || staged) return rest;
  const noted = Date.parse(String(reading.from));
  if (Number.isNaN(noted)) return rest;
  const before = rest.recover ? Date.parse(rest.recover.from) : NaN;
  return {
    ...rest,
    recover: {
      from: new Date(Number.isNaN(before) ? noted : Math.min(before, noted)).toISOString(),
      since: rest.recover?.since ?? now,
    },
  };
}

/** Whether a failed read may have been answered by the gateway (and so may have collected records). */
export function mayHaveCollected(err: unknown): boolean {
  return !(isGatewayError(err) && !err.ambiguous);
}

function later(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.max(a, b);
}

/** One poll of the queue: a pending recovery first, then the read that collects (and a recovery if it failed). */
export async function readCollected<R>(
  queue: CollectingQueue<R>,
  state: CollectedState,
  options: RecoveryOptions,
): Promise<CollectedRead<R>> {
  const seen = new SeenIds(Array.isArray(state.seen) ? state.seen : []);
  const saved = state.newest ? Date.parse(state.newest) : NaN;
  let newest = Number.isNaN(saved) ? undefined : saved;
  let recover = options.enabled ? state.recover : undefined;
  const records: R[] = [];
  const out: Omit<CollectedRead<R>, 'records' | 'state'> = { recovered: 0, recoveries: 0 };

  const take = (list: readonly R[], recovering: boolean): void => {
    for (const r of list) {
      const key = queue.key(r);
      if (seen.has(key)) continue;
      seen.add(key);
      records.push(r);
      if (recovering) out.recovered += 1;
      const at = queue.dateOf(r);
      if (at !== undefined && Number.isFinite(at)) newest = later(newest, at);
    }
  };

  const tryRecover = async (): Promise<void> => {
    const from = Date.parse(recover!.from);
    try {
      const list = await queue.recover(
        new Date(Number.isNaN(from) ? options.now() - options.windowMs : from),
      );
      take(list, true);
      out.recoveries += 1;
      recover = undefined;
    } catch (e) {
      out.recoveryError = e;
      if (options.now() - recover!.since >= RECOVERY_GIVE_UP_MS) {
        out.gaveUp = true;
        recover = undefined;
      }
    }
  };

  if (recover) await tryRecover();
  try {
    take(await queue.collect(), false);
  } catch (e) {
    out.failure = e;
    if (mayHaveCollected(e)) {
      if (!options.enabled) out.lostWithoutRecovery = true;
      else {
        // Records may come with a date a little before the newest one collected: the window covers that.
        const from = (newest ?? options.now()) - options.windowMs;
        const before = recover ? Date.parse(recover.from) : NaN;
        recover = {
          from: new Date(Number.isNaN(before) ? from : Math.min(before, from)).toISOString(),
          since: recover?.since ?? options.now(),
        };
        // At once (a burst may make this fail too: then at the next poll, before the queue is read).
        if (!out.recoveryError) await tryRecover();
        if (!recover) {
          // Recovered: nothing was lost, the poll did its work.
          out.lost = e;
          delete out.failure;
        }
      }
    }
  }
  const next: CollectedState = { seen: seen.toJSON() };
  if (newest !== undefined) next.newest = new Date(newest).toISOString();
  if (recover) next.recover = recover;
  return { records, state: next, ...out };
}

type Settings = Record<string, unknown>;

export interface RecoverySettings {
  enabled: boolean;
  windowMs: number;
  /** The Caption of QueryReceivedSMSByJobCaption in a recovery read. */
  caption: string;
}

/**
 * settings.js: smsgwRecoverLostReads (default true), smsgwRecoveryWindow (minutes, default 5),
 * smsgwRecoveryCaption (default empty: every message, as we read the spec's "string filter").
 */
export function recoverySettings(settings: unknown): RecoverySettings {
  const s = (settings ?? {}) as Settings;
  const minutes = Number(s.smsgwRecoveryWindow);
  return {
    enabled: s.smsgwRecoverLostReads !== false && s.smsgwRecoverLostReads !== 'false',
    windowMs: (Number.isFinite(minutes) && minutes >= 0 ? minutes : 5) * 60_000,
    caption: typeof s.smsgwRecoveryCaption === 'string' ? s.smsgwRecoveryCaption : '',
  };
}
