/**
 * What the heartbeat node keeps per source and the rules both places it lives by (a state file, sources-local.ts;
 * Redis, sources-shared.ts): when a source is due, when it is overdue, and the one extra period a source gets
 * when its time ran out while nobody was watching. No Node-RED here.
 *
 * A source is due `every + grace` after its last msg (or after watching began, for a listed source never seen).
 * Due and not yet alarmed: its alarm is noted (durably, or claimed in Redis) and then emitted, once. Its next msg
 * clears the note and emits "back", once. A source whose time ran out while no instance watched (Node-RED down,
 * the node redeployed, every coordinated instance gone) gets one more period from the moment watching resumes:
 * its msgs could not arrive meanwhile, and a healthy source reports within a period. Once only: a source quiet
 * for that period too is overdue (since the time it really fell due), even if Node-RED restarted again meanwhile.
 */

/** At most this many sources per node: one more is not watched (a warning says so). */
export const MAX_SOURCES = 10_000;
/** Longest source name (a msg.topic, say); a longer one is refused (VALIDATION) rather than kept. */
export const MAX_SOURCE_LENGTH = 500;
/** The shortest period a source is watched with: the checks run at most about once a second. */
export const MIN_PERIOD_MS = 1000;

export interface SourceEntry {
  /** When watching began (its first msg, or the start that listed it), ms. */
  since: number;
  /** Its last msg (ms); absent: none since watching began. */
  seen?: number;
  /** The one later deadline given after a time nobody watched (ms). */
  ext?: number;
  /** Its alarm was emitted: overdue since this time (ms); cleared by its next msg. */
  over?: number;
}

export interface HeartbeatPlan {
  /** Expected every (ms). */
  everyMs: number;
  /** Grace after that (ms). */
  graceMs: number;
  /** The listed sources (watched from the start, others ignored); undefined: any source, from its first msg. */
  listed: ReadonlySet<string> | undefined;
  /** Most sources watched at once. */
  max: number;
}

/** The gateway watch's two alarms: calls failing in a row, the balance below its threshold. */
export const GATEWAY_KINDS = ['calls', 'balance'] as const;
export type GatewayKind = (typeof GATEWAY_KINDS)[number];

/** What a raised gateway alarm says (kept until it clears). */
export interface GatewayAlarm {
  /** Raised at (ms). */
  since: number;
  /** calls: the failures in a row and the last one's code and message. */
  failures?: number;
  code?: string;
  message?: string;
  /** balance: what was read and the threshold. */
  balance?: number;
  threshold?: number;
}

export type HeartbeatEvent =
  | { type: 'overdue'; source: string; lastSeen: number | undefined; overdueSince: number }
  | { type: 'back'; source: string; lastSeen: number; overdueSince: number }
  | { type: 'gatewayDown'; kind: GatewayKind; alarm: GatewayAlarm }
  | { type: 'gatewayBack'; kind: GatewayKind; alarm: GatewayAlarm; at: number };

/** What a msg did: watched as before, a new source, back after an alarm, or not watched (full, not listed). */
export type SeenOutcome = 'watched' | 'added' | 'back' | 'full' | 'unlisted';

export interface SourceCounts {
  watched: number;
  overdue: number;
  /** The gateway alarms raised now. */
  gateway: GatewayKind[];
}

export const periodOf = (plan: HeartbeatPlan): number => plan.everyMs + plan.graceMs;

/** When the source is overdue: its last msg (or the start of watching) plus the period. */
export const lateOf = (e: SourceEntry, periodMs: number): number => (e.seen ?? e.since) + periodMs;

/** When it is looked at next: its one extra deadline, else when it is overdue. */
export const dueOf = (e: SourceEntry, periodMs: number): number => e.ext ?? lateOf(e, periodMs);

const time = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/** A kept entry, checked (a file or Redis may hold anything): the entry, or undefined to leave it out. */
export function entryOf(v: unknown): SourceEntry | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const r = v as Record<string, unknown>;
  if (!time(r.since)) return undefined;
  const e: SourceEntry = { since: r.since };
  for (const k of ['seen', 'ext', 'over'] as const) {
    if (r[k] === undefined || r[k] === null) continue;
    if (!time(r[k])) return undefined;
    e[k] = r[k];
  }
  return e;
}

/** A kept gateway alarm, checked. */
export function gatewayAlarmOf(v: unknown): GatewayAlarm | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const r = v as Record<string, unknown>;
  if (!time(r.since)) return undefined;
  const a: GatewayAlarm = { since: r.since };
  if (typeof r.failures === 'number' && Number.isFinite(r.failures)) a.failures = r.failures;
  if (typeof r.code === 'string') a.code = r.code;
  if (typeof r.message === 'string') a.message = r.message;
  if (typeof r.balance === 'number' && Number.isFinite(r.balance)) a.balance = r.balance;
  if (typeof r.threshold === 'number' && Number.isFinite(r.threshold)) a.threshold = r.threshold;
  return a;
}

/** The sources of the node's Sources field: comma (or newline) separated, blanks left out, each once. */
export function listedSources(text: unknown): string[] | undefined {
  if (typeof text !== 'string') return undefined;
  const list = [
    ...new Set(
      text
        .split(/[,\n]/)
        .map((s) => s.trim())
        .filter((s) => s !== ''),
    ),
  ];
  return list.length === 0 ? undefined : list;
}

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/** The longest delay a Node.js timer holds; a later due is looked at after this, then again. */
export const TIMER_MAX_MS = 2_147_483_647;

/** Where a node's sources live and who emits their alarms (sources-local.ts, sources-shared.ts). */
export interface Sources {
  /** Human-readable place, for logs. */
  readonly where: string;
  /** Reads what was kept and starts watching (listed sources added, unlisted ones dropped). */
  start(): Promise<void>;
  /** A msg of `source`: resolves once what it caused (a "back") was emitted. */
  seen(source: string): Promise<SeenOutcome>;
  /** Stops watching `source` (no "back" follows); false when it was not watched. */
  forget(source: string): Promise<boolean>;
  /** Raises a gateway alarm unless it is raised: true when this call raised (and emitted) it. */
  raise(kind: GatewayKind, alarm: GatewayAlarm): Promise<boolean>;
  /** Clears a raised gateway alarm: true when this call cleared (and emitted "back") it. */
  clear(kind: GatewayKind): Promise<boolean>;
  /** Whether the gateway alarm is raised, as far as this instance knows (cheap: no I/O). */
  raised(kind: GatewayKind): boolean;
  counts(): SourceCounts;
  /** Coordinated: whether this instance reads the balance this interval (one instance per interval). */
  balanceTurn?(everyMs: number): Promise<boolean>;
  /** Stops the timers; `removed` (the node was deleted): what was kept goes too. */
  close(removed: boolean): Promise<void>;
}

export interface SourcesDeps {
  plan: HeartbeatPlan;
  /** An alarm or a "back" to send: called only after it was noted (durably, or claimed in Redis). */
  emit(event: HeartbeatEvent): void;
  /** The counts changed (the status). */
  changed(): void;
  /** So many kept sources could not be read and are left out (one line in the log). */
  dropped(count: number): void;
  /** The shared state in Redis was lost (why); so many sources this instance knew are watched again from now. */
  lost?(why: string, watchedAgain: number): void;
  /** The shared state cannot be reached now (why), or can again (undefined): the status shows it. */
  trouble?(why: string | undefined): void;
  clock?: Clock;
}
