/**
 * The console's reading of `EmulatorControl.snapshot()`: plain records shaped for the page (one phone per
 * normalized number, flags and encoding of each text). Read defensively: a custom backend may return less.
 */
import { countSegments } from '../state/segments';
import { normalizeNumber } from '../state/numbers';

export type ConsoleEncoding = 'gsm7' | 'ucs2' | 'binary' | 'none';

export interface ConsoleReport {
  readonly id: number;
  readonly jobId: number;
  readonly user: string;
  readonly recipient: string;
  /** Normalized number: the phone the report belongs to. */
  readonly key: string;
  readonly status: string;
  readonly msgCode: number;
  readonly msgText: string;
  readonly sequence: number;
  readonly at: string;
}

export interface ConsoleJob {
  readonly id: number;
  readonly user: string;
  readonly caption: string;
  readonly sender: string;
  readonly type: string;
  readonly status: string;
  readonly text: string;
  /** Hex of UDH + payload for binary jobs (clipped). */
  readonly binData: string;
  readonly recipients: readonly string[];
  /** Normalized numbers, same order as `recipients`. */
  readonly keys: readonly string[];
  readonly segments: number;
  readonly encoding: ConsoleEncoding;
  readonly flash: boolean;
  readonly long: boolean;
  readonly udh: boolean;
  /** A text that lands on a phone (not an HLR lookup). */
  readonly message: boolean;
  readonly amount: number;
  readonly createdAt: string;
  readonly sentAt: string | null;
  readonly changedAt: string;
  readonly reports: readonly ConsoleReport[];
}

export interface ConsoleInbound {
  readonly id: number;
  readonly user: string;
  readonly from: string;
  readonly key: string;
  readonly to: string;
  readonly text: string;
  readonly at: string;
  readonly jobId: number;
  readonly collected: boolean;
}

export interface ConsoleAccount {
  readonly user: string;
  readonly balance: number;
  readonly reserved: number;
  readonly locked: boolean;
}

export interface ConsoleState {
  readonly now: string;
  readonly accounts: readonly ConsoleAccount[];
  readonly jobs: readonly ConsoleJob[];
  readonly inbound: readonly ConsoleInbound[];
  /** Normalized number → 'unknown' | 'unreachable' (absent: ok). */
  readonly subscribers: Readonly<Record<string, string>>;
}

type Rec = Record<string, unknown>;

const rec = (v: unknown): Rec => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Rec) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const time = (v: unknown, fallback: string): string => (typeof v === 'string' && v !== '' ? v : fallback);

const MAX_BIN_HEX = 512;
const BINARY_TYPES = /^(UDH|Bin|WapPush|VCard|Ringtone|Logo|MMS)/i;
const FLASH_TYPES = new Set(['Flash', 'StandartClass0']);

function encodingOf(type: string, text: string, binData: string): ConsoleEncoding {
  if (type === 'HLR') return 'none';
  if (binData !== '' || BINARY_TYPES.test(type)) return 'binary';
  return countSegments(text).encoding;
}

function readReport(r: Rec, job: { id: number; user: string }, cc: string, now: string): ConsoleReport {
  const recipient = str(r.recipient);
  return {
    id: num(r.id),
    jobId: job.id,
    user: job.user,
    recipient,
    key: normalizeNumber(recipient, cc),
    status: str(r.status),
    msgCode: num(r.msgCode),
    msgText: str(r.msgText),
    sequence: num(r.sequence),
    at: time(r.at, now),
  };
}

function readJob(j: Rec, user: string, cc: string, now: string): ConsoleJob {
  const type = str(j.typ);
  const text = str(j.text);
  const binFull = str(j.binData);
  const binData = binFull.length > MAX_BIN_HEX ? `${binFull.slice(0, MAX_BIN_HEX)}…` : binFull;
  const recipients = arr(j.recipients).filter((r): r is string => typeof r === 'string');
  const segments = num(j.segments) || 1;
  const id = num(j.id);
  const owner = str(j.user, user);
  return {
    id,
    user: owner,
    caption: str(j.caption),
    sender: str(j.sender),
    type,
    status: str(j.status),
    text,
    binData,
    recipients,
    keys: recipients.map((r) => normalizeNumber(r, cc)),
    segments,
    encoding: encodingOf(type, text, binFull),
    flash: FLASH_TYPES.has(type),
    long: segments > 1 || /Long|Festnetz/.test(type),
    udh: type === 'UDH' || (binFull !== '' && str(j.binDataTyp, 'None') !== 'None'),
    message: type !== 'HLR',
    amount: num(j.amount),
    createdAt: time(j.createdAt, now),
    sentAt: typeof j.sentAt === 'string' ? j.sentAt : null,
    changedAt: time(j.changedAt, now),
    reports: arr(j.reports).map((r) => readReport(rec(r), { id, user: owner }, cc, now)),
  };
}

function readInbound(m: Rec, user: string, cc: string, now: string): ConsoleInbound {
  const from = str(m.sender);
  return {
    id: num(m.id),
    user,
    from,
    key: normalizeNumber(from, cc),
    to: str(m.to),
    text: str(m.text),
    at: time(m.at, now),
    jobId: num(m.jobId),
    collected: m.collected === true,
  };
}

/** Reads a snapshot (GatewayState's shape: `{ now, subscribers, accounts: [{ account, jobs, inbound }] }`). */
export function readState(snapshot: unknown, countryCode: string): ConsoleState {
  const snap = rec(snapshot);
  const now = time(snap.now, new Date().toISOString());
  const accounts: ConsoleAccount[] = [];
  const jobs: ConsoleJob[] = [];
  const inbound: ConsoleInbound[] = [];
  for (const item of arr(snap.accounts)) {
    const entry = rec(item);
    // GatewayState nests the account record; a simpler backend may give it flat.
    const a = entry.account === undefined ? entry : rec(entry.account);
    const user = str(a.user);
    accounts.push({ user, balance: num(a.balance), reserved: num(a.reserved), locked: a.locked === true });
    for (const j of arr(entry.jobs)) jobs.push(readJob(rec(j), user, countryCode, now));
    for (const m of arr(entry.inbound)) {
      const r = rec(m);
      if (num(r.report) === 0) inbound.push(readInbound(r, user, countryCode, now));
    }
  }
  jobs.sort((x, y) => x.id - y.id);
  inbound.sort((x, y) => x.id - y.id);
  const subscribers: Record<string, string> = {};
  for (const [k, v] of Object.entries(rec(snap.subscribers))) if (typeof v === 'string') subscribers[k] = v;
  return { now, accounts, jobs, inbound, subscribers };
}

const SECRET_KEY = /^(smsc)?password$/i;

function decodedKey(key: string): string {
  try {
    return decodeURIComponent(key.replace(/\+/g, ' '));
  } catch {
    return key;
  }
}

/**
 * A second mask over request-log text before it leaves the process: the whole content of any password
 * element (CDATA and entities included, any case, any prefix) and password form fields (any case, even
 * percent-encoded keys).
 */
export function maskPasswords(text: string): string {
  return text
    .replace(/(<([\w.-]+:)?((?:smsc)?password)\b[^>]*?(?<!\/)>)[\s\S]*?(<\/([\w.-]+:)?\3\s*>)/gi, '$1***$4')
    .replace(/(^|[?&\s])([^=&?\s]+)=([^&\s]*)/g, (m: string, lead: string, key: string) =>
      SECRET_KEY.test(decodedKey(key)) ? `${lead}${key}=***` : m,
    );
}
