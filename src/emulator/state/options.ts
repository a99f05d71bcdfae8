/** Options of the emulator's business state and their defaults (each default is a documented guess). */
import type { Catalogue, ServiceName } from '../../catalogue';

/**
 * The business logic of each service: an object whose functions are named as the typed methods of that
 * service's operations (`queryJobs`), each `(env, account, params) => value` (state/env.ts). Other exports
 * are not looked at.
 */
export type OperationLogic = Readonly<Partial<Record<ServiceName, Readonly<Record<string, unknown>>>>>;

export interface AccountSeed {
  user: string;
  password: string;
  /** SMSCR logs in with serial/password; default: the user name. */
  serial?: string;
  balance?: number;
  locked?: boolean;
  /** null (default) allows every address. */
  ipAllowList?: string[] | null;
  /** Whether SendSMS may set JobPriority (default false: the value is ignored and a Warn log entry written). */
  priorityEnabled?: boolean;
  companyName?: string;
}

export interface TimingOptions {
  /** From the due time (creation or SendDate) until the job is handed to the network and charged. */
  processingMs?: number;
  /** From handing over until the final delivery reports (and HLR results) exist. */
  deliveryMs?: number;
}

export interface GatewayStateOptions {
  user?: string;
  password?: string;
  balance?: number;
  accounts?: AccountSeed[];
  /** JSON seed and persistence file: loaded when it exists, saved (temp file + rename) after changes and on close(). */
  stateFile?: string;
  /** Debounce of state-file writes (default 200 ms). */
  saveDelayMs?: number;
  timing?: TimingOptions;
  /** Injectable clock (ms since epoch), default Date.now. advance() adds to it. */
  clock?: () => number;
  /** Price per SMS segment and recipient, keyed by JobType name (`Standart`, `HighQuality`, `HLR`, ...). */
  prices?: Record<string, number>;
  /** Case-insensitive substrings that make a text `MsgTextBlacklistFound`. */
  blacklist?: string[];
  /** Same sender, recipients, text and caption within this window is `DuplicateSMSJobFound`; 0 disables. */
  duplicateWindowMs?: number;
  /** Most segments a long SMS may have (default 10); more is `SMSTypeError`. */
  maxSegments?: number;
  /** Non-long types (Standard, Flash, HighQuality, ...) with a text longer than one SMS: reject or truncate. */
  tooLongText?: 'reject' | 'truncate';
  /** International prefixes (digits, no +) treated as mobile by SendMobileOrFixlineSMS. */
  mobilePrefixes?: string[];
  /** Country code assumed for national numbers starting with a single 0 (default 49). */
  defaultCountryCode?: string;
  /** Zone of the date text in legacy strings, written and read (minutes east of UTC, default 0 = UTC). */
  legacyTextOffsetMinutes?: number;
  /** NormNetCode (MCC+MNC) of reachable numbers in HLR results (default 26201). */
  hlrNetworkCode?: string;
  /** When set, every delivered recipient of a text job answers with this text (a reply carrying the JobId). */
  autoReply?: string;
  /**
   * Jobs kept per account (default 10000; Infinity keeps all). Beyond it the oldest finished jobs are forgotten
   * with their reports, log entries and HLR results, in batches, so a long-running sandbox stays bounded.
   */
  maxJobs?: number;
  /**
   * How the Caption of QueryJobInfoByJobCaption / QueryReceivedSMSByJobCaption matches a job's caption: 'exact'
   * (default) or 'prefix' (every caption that starts with it). The spec only calls it a "string filter"; the
   * package must work with either, so tests run against both. Changeable at run time (setCaptionMatch).
   */
  captionMatch?: CaptionMatch;
  /**
   * The operations served (default: the package's catalogue). A catalogue of your own, e.g. with an operation
   * the package lacks, needs its business logic in `logic`.
   */
  catalogue?: Catalogue;
  /** The business logic per service (default: the emulator's own, src/emulator/state/ops-*.ts). */
  logic?: OperationLogic;
}

export type CaptionMatch = 'exact' | 'prefix';
export const CAPTION_MATCHES: readonly CaptionMatch[] = ['exact', 'prefix'];

export function captionMatchOf(mode: unknown): CaptionMatch {
  if (mode === undefined) return 'exact';
  if (!CAPTION_MATCHES.includes(mode as CaptionMatch))
    throw new RangeError(`caption match must be one of ${CAPTION_MATCHES.join(', ')}, not ${String(mode)}`);
  return mode as CaptionMatch;
}

export const DEFAULT_PRICES: Readonly<Record<string, number>> = {
  Standart: 1,
  Flash: 1,
  StandartDeliveryNotification: 1,
  StandartLongSMS: 1,
  StandartClass0: 1,
  AbsenderUeberAusland: 1,
  NoSenderAusland: 1,
  HighQuality: 1.5,
  HighQualityLong: 1.5,
  Festnetz: 2,
  HLR: 0.5,
  /** Every other (binary) type. */
  default: 1,
};

export interface ResolvedOptions {
  readonly accounts: AccountSeed[];
  readonly stateFile: string | undefined;
  readonly saveDelayMs: number;
  readonly processingMs: number;
  readonly deliveryMs: number;
  readonly clock: () => number;
  readonly prices: Readonly<Record<string, number>>;
  readonly blacklist: string[];
  readonly duplicateWindowMs: number;
  readonly maxSegments: number;
  readonly tooLongText: 'reject' | 'truncate';
  readonly mobilePrefixes: string[];
  readonly defaultCountryCode: string;
  readonly legacyTextOffsetMinutes: number;
  readonly hlrNetworkCode: string;
  readonly autoReply: string | undefined;
  readonly maxJobs: number;
  readonly captionMatch: CaptionMatch;
}

export const DEFAULT_MOBILE_PREFIXES = [
  '4915',
  '4916',
  '4917',
  '436',
  '417',
  '447',
  '336',
  '337',
  '393',
  '346',
  '347',
];

export function resolveOptions(o: GatewayStateOptions = {}): ResolvedOptions {
  const main: AccountSeed = {
    user: o.user ?? 'demo',
    password: o.password ?? 'demo-password',
    balance: o.balance ?? 100,
  };
  return {
    accounts: [main, ...(o.accounts ?? []).filter((a) => a.user !== main.user)],
    stateFile: o.stateFile,
    saveDelayMs: o.saveDelayMs ?? 200,
    processingMs: o.timing?.processingMs ?? 200,
    deliveryMs: o.timing?.deliveryMs ?? 500,
    clock: o.clock ?? Date.now,
    prices: { ...DEFAULT_PRICES, ...o.prices },
    blacklist: (o.blacklist ?? ['BLACKLISTED']).map((w) => w.toLowerCase()).filter((w) => w !== ''),
    duplicateWindowMs: o.duplicateWindowMs ?? 60_000,
    maxSegments: o.maxSegments ?? 10,
    tooLongText: o.tooLongText ?? 'reject',
    mobilePrefixes: o.mobilePrefixes ?? DEFAULT_MOBILE_PREFIXES,
    defaultCountryCode: o.defaultCountryCode ?? '49',
    legacyTextOffsetMinutes: o.legacyTextOffsetMinutes ?? 0,
    hlrNetworkCode: o.hlrNetworkCode ?? '26201',
    autoReply: o.autoReply,
    maxJobs: maxJobsOf(o.maxJobs),
    captionMatch: captionMatchOf(o.captionMatch),
  };
}

export const DEFAULT_MAX_JOBS = 10_000;

function maxJobsOf(n: number | undefined): number {
  if (n === undefined) return DEFAULT_MAX_JOBS;
  if (n === Infinity || (Number.isInteger(n) && n >= 1)) return n;
  throw new RangeError(`maxJobs must be a whole number >= 1 or Infinity, not ${String(n)}`);
}
