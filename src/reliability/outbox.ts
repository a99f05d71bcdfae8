/**
 * A durable outbox for sends while the gateway is unreachable (framework-free). A send goes out at once; when
 * it fails because the gateway cannot be reached (refused, DNS, 503/502/504, an answer that never came) it is
 * kept in a JSON file and sent when the gateway is back, also after a restart (the file is loaded on open).
 * Each entry carries its reference from before its first attempt, so every later attempt looks the job up
 * first when an earlier one may have been delivered: at most one job per entry. Credentials are never stored.
 */
import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import { rename } from 'node:fs/promises';
import { findOperation } from '../catalogue';
import type { OperationDef, ServiceName } from '../catalogue/types';
import { GatewayError } from '../errors';
import { readIfExists, writeFileAtomic } from './atomic-file';
import { captionParamOf } from './job-lookup';
import { createReference, isReference } from './reference';
import { classifyFailure } from './safe-send';

/** One kept send as stored (params without credentials). */
export interface OutboxEntry {
  id: string;
  reference: string;
  service: ServiceName;
  operation: string;
  params: Record<string, unknown>;
  /** ISO time of the submit. */
  createdAt: string;
  /** Send attempts made from the outbox (the first, direct one not counted). */
  attempts: number;
  /** An attempt may have reached the gateway: look the reference up before sending again. */
  maybeSent: boolean;
  /** Written before each attempt from the outbox and cleared after it: set on load = a crash during a send. */
  inFlight: boolean;
  /** Message of the last failure. */
  lastError?: string | undefined;
}

/** Sends one entry with its reference; `lookupFirst` when an earlier attempt may have been delivered. */
export type OutboxSender = (
  entry: Readonly<OutboxEntry>,
  options: { reference: string; lookupFirst: boolean },
) => Promise<unknown>;

export interface OutboxOptions {
  /** The JSON file (e.g. under the Node-RED user directory). Its directory must exist. */
  file: string;
  send: OutboxSender;
  /** First wait before the gateway is tried again (default 5000 ms), doubled up to `maxRetryIntervalMs`. */
  retryIntervalMs?: number;
  /** Longest wait between tries (default 60000 ms). */
  maxRetryIntervalMs?: number;
  /** Most entries kept; one more fails with QUEUE_FULL (default 10000). */
  maxEntries?: number;
  /** Which failures keep a message (default: the gateway could not be reached, or the answer was lost). */
  keep?: (err: unknown) => boolean;
}

export type SubmitResult =
  | { state: 'sent'; reference: string; result: unknown }
  | { state: 'kept'; reference: string; id: string; error: string };

export interface OutboxEvents {
  /** A kept entry was sent (result as the send method resolved). */
  sent: [entry: OutboxEntry, result: unknown];
  /** A kept entry was refused for good (not kept any longer). */
  failed: [entry: OutboxEntry, error: unknown];
  /** The number of kept entries changed. */
  change: [size: number];
}

/** The gateway could not be reached, or may have got the message: keep it, look it up later. */
export const keepByDefault = (err: unknown): boolean => classifyFailure(err) !== 'final';

const FILE_VERSION = 1;

function stripCredentials(op: OperationDef, params: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params)) {
    const def = op.params.find((p) => p.name.toLowerCase() === key.toLowerCase());
    if (def?.credential) continue;
    out[key] = toJson(value);
  }
  return out;
}

/** Values the client reads back the same from JSON: dates as ISO text, bytes as base64. */
function toJson(value: unknown): unknown {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? String(value) : value.toISOString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (Array.isArray(value)) return value.map(toJson);
  return value;
}

function readEntry(v: unknown): OutboxEntry | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const e = v as Record<string, unknown>;
  if (typeof e.id !== 'string' || !isReference(e.reference) || typeof e.operation !== 'string')
    return undefined;
  const op = findOperation(e.service as ServiceName, e.operation);
  if (!op || !e.params || typeof e.params !== 'object') return undefined;
  return {
    id: e.id,
    reference: e.reference,
    service: op.service,
    operation: op.name,
    params: stripCredentials(op, e.params as Record<string, unknown>),
    createdAt: typeof e.createdAt === 'string' ? e.createdAt : new Date().toISOString(),
    attempts: typeof e.attempts === 'number' ? e.attempts : 0,
    // A send interrupted by a crash may have been delivered.
    maybeSent: e.maybeSent === true || e.inFlight === true,
    inFlight: false,
    lastError: typeof e.lastError === 'string' ? e.lastError : undefined,
  };
}

export class Outbox extends EventEmitter<OutboxEvents> {
  readonly file: string;
  /** Problems met while loading the file (a damaged file is moved aside, never dropped). */
  readonly warnings: string[] = [];
  private readonly sendFn: OutboxSender;
  private readonly retryMs: number;
  private readonly maxRetryMs: number;
  private readonly maxEntries: number;
  private readonly keep: (err: unknown) => boolean;
  private readonly entries = new Map<string, OutboxEntry>();
  private writing: Promise<void> | undefined;
  private dirty = false;
  private timer: NodeJS.Timeout | undefined;
  private draining: Promise<void> | undefined;
  private wait: number;
  private closed = false;

  private constructor(options: OutboxOptions) {
    super();
    if (!options || typeof options.file !== 'string' || options.file === '')
      throw new GatewayError('CONFIG', 'the outbox needs a file');
    if (typeof options.send !== 'function')
      throw new GatewayError('CONFIG', 'the outbox needs a send function');
    this.file = options.file;
    this.sendFn = options.send;
    this.retryMs = Math.max(1, options.retryIntervalMs ?? 5000);
    this.maxRetryMs = Math.max(this.retryMs, options.maxRetryIntervalMs ?? 60_000);
    this.maxEntries = Math.max(1, options.maxEntries ?? 10_000);
    this.keep = options.keep ?? keepByDefault;
    this.wait = this.retryMs;
  }

  /** Opens the outbox: loads the file (if any) and starts sending what it holds. */
  static async open(options: OutboxOptions): Promise<Outbox> {
    const box = new Outbox(options);
    await box.load();
    if (box.entries.size > 0) box.schedule(0);
    return box;
  }

  /** Entries kept. */
  get size(): number {
    return this.entries.size;
  }

  /** The kept entries, oldest first (copies; params never hold credentials). */
  list(): OutboxEntry[] {
    return [...this.entries.values()].map((e) => ({ ...e, params: { ...e.params } }));
  }

  /**
   * Sends a message now, or keeps it when the gateway cannot be reached (or while older entries wait, to keep
   * their order). Resolves with what happened; rejects for refusals (they would fail again) and QUEUE_FULL.
   */
  async submit(
    service: ServiceName,
    operation: string,
    params: Record<string, unknown>,
  ): Promise<SubmitResult> {
    if (this.closed) throw new GatewayError('CONFIG', 'the outbox is closed', { ambiguous: false });
    const op = findOperation(service, operation);
    if (!op || op.sends !== true)
      throw new GatewayError('VALIDATION', `${service}/${operation} is not a send operation`, {
        ambiguous: false,
      });
    if (!captionParamOf(op)) {
      throw new GatewayError(
        'VALIDATION',
        `${op.name} has no Caption to carry a reference: the outbox cannot send it at most once`,
        { service: op.service, operation: op.name, ambiguous: false },
      );
    }
    const entry: OutboxEntry = {
      id: randomUUID(),
      reference: createReference(),
      service: op.service,
      operation: op.name,
      params: stripCredentials(op, params),
      createdAt: new Date().toISOString(),
      attempts: 0,
      maybeSent: false,
      inFlight: false,
    };
    if (this.entries.size > 0) return this.hold(entry, 'older messages are waiting for the gateway');
    try {
      const result = await this.sendFn(entry, { reference: entry.reference, lookupFirst: false });
      return { state: 'sent', reference: entry.reference, result };
    } catch (e) {
      if (!this.keep(e)) throw e;
      entry.maybeSent = e instanceof GatewayError && e.ambiguous;
      return this.hold(entry, e instanceof Error ? e.message : String(e));
    }
  }

  /** Tries to send everything kept, now. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.wait = this.retryMs;
    return this.drain();
  }

  /** Removes every kept entry (they will not be sent). Resolves with how many there were. */
  async clear(): Promise<number> {
    const n = this.entries.size;
    this.entries.clear();
    await this.persist();
    this.emit('change', 0);
    return n;
  }

  /** Removes one entry by id; true when it was there. */
  async remove(id: string): Promise<boolean> {
    const had = this.entries.delete(id);
    if (had) {
      await this.persist();
      this.emit('change', this.entries.size);
    }
    return had;
  }

  /** Stops retrying and waits for a pending write; the file keeps what is still kept. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.draining?.catch(() => undefined);
    await this.writing;
  }

  private async hold(entry: OutboxEntry, why: string): Promise<SubmitResult> {
    if (this.entries.size >= this.maxEntries) {
      throw new GatewayError('QUEUE_FULL', `outbox is full (${this.maxEntries} messages): ${why}`, {
        service: entry.service,
        operation: entry.operation,
        ambiguous: entry.maybeSent,
      });
    }
    entry.lastError = why;
    this.entries.set(entry.id, entry);
    await this.persist();
    this.emit('change', this.entries.size);
    this.schedule(this.wait);
    return { state: 'kept', reference: entry.reference, id: entry.id, error: why };
  }

  private schedule(ms: number): void {
    if (this.closed || this.timer || this.draining || this.entries.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.drain();
    }, ms);
    this.timer.unref?.();
  }

  private drain(): Promise<void> {
    this.draining ??= this.drainAll()
      .catch((e: unknown) => {
        // A write failed (disk full, file removed with its directory): keep what is in memory, try again later.
        this.warnings.push(`outbox: ${e instanceof Error ? e.message : String(e)}`);
      })
      .finally(() => {
        this.draining = undefined;
        if (this.entries.size > 0) this.schedule(this.wait);
      });
    return this.draining;
  }

  /** Oldest first, one at a time; stops at the first failure that says the gateway is still away. */
  private async drainAll(): Promise<void> {
    for (const id of [...this.entries.keys()]) {
      if (this.closed) return;
      const entry = this.entries.get(id);
      if (!entry) continue;
      const lookupFirst = entry.maybeSent;
      // Written before the attempt: a crash from here on leaves an entry that is looked up first.
      entry.inFlight = true;
      entry.attempts++;
      await this.persist();
      let result: unknown;
      try {
        result = await this.sendFn(entry, { reference: entry.reference, lookupFirst });
      } catch (e) {
        entry.inFlight = false;
        if (this.keep(e)) {
          if (e instanceof GatewayError && e.ambiguous) entry.maybeSent = true;
          entry.lastError = e instanceof Error ? e.message : String(e);
          await this.persist();
          this.wait = Math.min(this.maxRetryMs, this.wait * 2);
          return;
        }
        this.entries.delete(id);
        await this.persist();
        this.emit('change', this.entries.size);
        this.emit('failed', entry, e);
        continue;
      }
      this.entries.delete(id);
      await this.persist();
      this.wait = this.retryMs;
      this.emit('change', this.entries.size);
      this.emit('sent', entry, result);
    }
  }

  private async load(): Promise<void> {
    const text = await readIfExists(this.file);
    if (text === undefined || text.trim() === '') return;
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      const aside = `${this.file}.damaged-${Date.now()}`;
      await rename(this.file, aside);
      this.warnings.push(`the outbox file was not JSON; moved to ${aside}`);
      return;
    }
    const list = (data as { entries?: unknown }).entries;
    if (!Array.isArray(list)) {
      this.warnings.push('the outbox file holds no entry list; starting empty');
      return;
    }
    for (const raw of list) {
      const entry = readEntry(raw);
      if (entry) this.entries.set(entry.id, entry);
      else this.warnings.push('an unreadable outbox entry was skipped');
    }
  }

  /** Serialized, coalescing writes: resolves once a write that includes every change so far is done. */
  private persist(): Promise<void> {
    this.dirty = true;
    this.writing ??= (async () => {
      try {
        while (this.dirty) {
          this.dirty = false;
          const text = JSON.stringify({ version: FILE_VERSION, entries: [...this.entries.values()] });
          await writeFileAtomic(this.file, text);
        }
      } finally {
        this.writing = undefined;
      }
    })();
    return this.writing;
  }
}
