/**
 * What the outbox keeps per message, and the storage interface behind it (docs/reliability.md, "Storage"). The
 * Outbox decides what to send when; a store only makes its records durable. The file journal
 * (outbox-journal.ts) is one store; a shared one (Redis) implements the same five methods.
 */
import { findOperation } from '../catalogue';
import type { OperationDef, ServiceName } from '../catalogue/types';
import { isReference } from './reference';
import { bytesOf, isBytes, isDate, timeOf } from '../shape';

/** One accepted send as stored (params without credentials). */
export interface OutboxEntry {
  id: string;
  /** The unique reference in its Caption, chosen before anything was written: every attempt carries it. */
  reference: string;
  service: ServiceName;
  operation: string;
  params: Record<string, unknown>;
  /** ISO time of the submit (the lookup searches from a day before it). */
  createdAt: string;
  /** Attempts made so far (each may include the client's own quick retries). */
  attempts: number;
  /** An earlier attempt may have reached the gateway: look the reference up before sending again. */
  maybeSent: boolean;
  /**
   * The store says an attempt may be under way. Written (durably) before an attempt that the stored state
   * would not otherwise cover, cleared after a failed one: an entry loaded with it set is looked up first.
   */
  inFlight: boolean;
  /** Message of the last failure. */
  lastError?: string | undefined;
  /** Who submitted it (a Node-RED node id): its outcome is handed back there, also after a restart. */
  origin?: string | undefined;
  /** `critical`: the spending guard lets it use the reserve above its limits (budget.ts). */
  priority?: 'critical' | undefined;
  /**
   * Not attempted before this time (ms since epoch): held for its recipients' quiet hours, or until a number's
   * pacing slot. Kept across restarts; a held entry is not "kept" (it waits for its time, not for the gateway).
   */
  notBefore?: number | undefined;
  /** msg.topic of the msg that sent it (text, cut at TOPIC_MAX): held messages can be cancelled by it. */
  topic?: string | undefined;
}

/** The longest topic stored with an entry. */
export const TOPIC_MAX = 500;

/**
 * A shared store (Redis) says another process owns the entry now: it took it over because this one was thought
 * gone. The outbox forgets it without removing it: the new owner sends it (looked up first) and reports it.
 */
export class EntryTakenOver extends Error {
  constructor(readonly id: string) {
    super(`entry ${id} was taken over by another instance`);
  }
}

/** Counters of a store, for figures and monitoring. */
export interface OutboxStoreStats {
  /** Records written (adds, updates, removes). */
  records: number;
  /** Flushes to stable storage (fsync/fdatasync; a compaction counts its file and its directory). */
  syncs: number;
  /** Bytes written, compactions included. */
  bytes: number;
  /** Times the store was rewritten from what it holds (journal compaction). */
  compactions: number;
}

/**
 * Durable storage of outbox entries. Every method that resolves promises durability of what it was given
 * (a crash after it resolved loses nothing of it); what is not yet resolved may or may not survive a crash.
 * Calls may come many at a time: a store should batch them (group commit) rather than flush each alone.
 */
export interface OutboxStore {
  /** Where the entries are kept (a file, a key), for messages. */
  readonly location: string;
  /** Problems met (a damaged record skipped, a write that failed), readable by the caller. */
  readonly warnings: string[];
  readonly stats: OutboxStoreStats;
  /** Opens the store: the entries it holds, oldest first (called once, before anything else). */
  load(): Promise<OutboxEntry[]>;
  /** A new entry. Resolves once it is durable: only then is the message accepted and attempted. */
  add(entry: Readonly<OutboxEntry>): Promise<void>;
  /** New bookkeeping of an entry (attempts, maybeSent, inFlight, lastError). Resolves once durable. */
  update(entry: Readonly<OutboxEntry>): Promise<void>;
  /**
   * The entry is settled (sent, found by its reference, refused for good, or removed by the user). With
   * `sent` (its job is at the gateway) a store may resolve once the record is written and flush it with a
   * later one: should a machine crash lose it, the entry was stored in flight, so it is looked up after the
   * restart, found, and its result emitted again; it is never sent again. A remove without `sent` is
   * durable when it resolves (a refused message must not come back).
   */
  remove(id: string, options?: { sent?: boolean }): Promise<void>;
  /** Resolves once everything given so far is durable; later calls reject. */
  close(): Promise<void>;
}

/** Values the client reads back the same from JSON: dates as ISO text, bytes as base64. */
function toJson(value: unknown): unknown {
  if (isDate(value)) {
    const t = timeOf(value);
    return Number.isNaN(t) ? 'Invalid Date' : new Date(t).toISOString();
  }
  if (isBytes(value)) return bytesOf(value).toString('base64');
  if (Array.isArray(value)) return value.map(toJson);
  return value;
}

/** The lower-cased names of each operation's credential parameters, made once per operation. */
const credentialNames = new WeakMap<OperationDef, ReadonlySet<string>>();

function credentialsOf(op: OperationDef): ReadonlySet<string> {
  let names = credentialNames.get(op);
  if (!names) {
    names = new Set(op.params.filter((p) => p.credential).map((p) => p.name.toLowerCase()));
    credentialNames.set(op, names);
  }
  return names;
}

/** The params as stored: credential parameters of the catalogue dropped, values made JSON-safe. */
export function storedParams(op: OperationDef, params: Record<string, unknown>): Record<string, unknown> {
  const credentials = credentialsOf(op);
  const out: Record<string, unknown> = {};
  for (const key in params) {
    if (!Object.prototype.hasOwnProperty.call(params, key)) continue;
    // The catalogue's names differ from each other beyond case: a key is a credential by its name alone.
    if (credentials.has(key.toLowerCase())) continue;
    out[key] = toJson(params[key]);
  }
  return out;
}

/** An entry read back from storage, checked (a known send, a valid reference) and without credentials. */
export function readEntry(v: unknown): OutboxEntry | undefined {
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
    params: storedParams(op, e.params as Record<string, unknown>),
    createdAt: typeof e.createdAt === 'string' ? e.createdAt : new Date().toISOString(),
    attempts: typeof e.attempts === 'number' ? e.attempts : 0,
    maybeSent: e.maybeSent === true,
    inFlight: e.inFlight === true,
    lastError: typeof e.lastError === 'string' ? e.lastError : undefined,
    origin: typeof e.origin === 'string' ? e.origin : undefined,
    ...(e.priority === 'critical' ? { priority: 'critical' as const } : {}),
    ...(typeof e.notBefore === 'number' && Number.isFinite(e.notBefore) ? { notBefore: e.notBefore } : {}),
    ...(typeof e.topic === 'string' ? { topic: e.topic.slice(0, TOPIC_MAX) } : {}),
  };
}
