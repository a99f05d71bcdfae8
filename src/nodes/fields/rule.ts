/**
 * What a node field may hold, and the one checker that judges a value by it. The editor (resources/fields.js, which
 * `npm run generate` transpiles from this directory) and the runtime (common/fields.ts) run this same code, so a
 * value the dialog marks red is exactly a value the node refuses at deploy, with the same words. No imports and no
 * Node.js or browser APIs here: what differs between the two sides (the msg property parser, JSONata, the words of
 * the message catalogues) comes in through `FieldEnv` and `Translate`.
 */

/** RED._ of either side: a fully qualified key ("<module>/<set>:<key>") and its parameters. */
export type Translate = (key: string, params?: Record<string, string | number>) => string;

/** What the checker asks of the side it runs on. */
export interface FieldEnv {
  /** The text parses as a msg, flow or global property (Node-RED's own parser on both sides). */
  property(expr: string): boolean;
  /** The text parses as a JSONata expression. */
  jsonata(expr: string): boolean;
}

/** The largest delay Node.js timers hold (2^31-1 ms, about 24.8 days); a longer one fires after 1 ms. */
export const TIMER_MAX_MS = 2_147_483_647;

export type FieldKind =
  /** A number (decimals unless `whole`). */
  | 'number'
  /** Text, optionally of a `format`. */
  | 'text'
  /** One of `options` (a select in the dialog). */
  | 'choice'
  /** A checkbox: true or false. */
  | 'flag'
  /** A typedInput (`<name>` and `<name>Type`): literal types are checked at deploy, the others for each msg. */
  | 'typed'
  /** A msg property the node writes to (the Output field). */
  | 'property'
  /** A reference to a config node: Node-RED's own check in the editor, the node's status at runtime. */
  | 'config'
  /** Kept by the dialog itself (outputs, inputs, parameter rows): nobody types into it. */
  | 'internal';

/**
 * What a blank field means: `required` (refused), `default` (the field's `default`, shown as the placeholder), or
 * one of the words of `smsgw-config.fields.blank` ("no limit", "none", ...).
 */
export type Blank =
  | 'required'
  | 'default'
  | 'none'
  | 'noLimit'
  | 'discover'
  | 'connections'
  | 'payload'
  | 'fromMsg'
  | 'now'
  | 'gatewayDefault'
  | 'auto'
  | 'anyReply'
  | 'file'
  | 'asGiven'
  | 'hostZone'
  | 'anySource';

/** Text formats the checker knows (words: `smsgw-config.fields.must.<format>`). */
export type TextFormat =
  | 'url'
  | 'proxyUrl'
  | 'redisUrl'
  | 'country'
  | 'path'
  | 'callPath'
  | 'callName'
  | 'separator'
  | 'answerWords'
  | 'passAnswers'
  | 'resolveAnswers'
  | 'date'
  | 'udhData'
  | 'recipients'
  | 'clock'
  | 'timeZone'
  | 'errorCodes'
  /** The opt-out keyword lists: words none of which is in another of the three lists. */
  | 'stopWords'
  | 'startWords'
  | 'helpWords'
  | 'text';

export interface Field {
  readonly kind: FieldKind;
  /** i18n key of the label the dialog shows: "<set>.<path>" (the set is the catalogue, e.g. smsgw-ask). */
  readonly label: string;
  /** The value of a new node (the editor's default). */
  readonly value: unknown;
  /** What blank means (default: `none`). */
  readonly blank?: Blank;
  /** The value a blank field takes when `blank` is `default` (else the new node's value). */
  readonly default?: string | number | boolean;
  /**
   * Only judged while another field has one of these values (the Redis fields while coordinating); `words` says
   * so in the help (smsgw-config.fields.when.<words>).
   */
  readonly when?: { readonly field: string; readonly is: readonly unknown[]; readonly words: string };

  // number (and typed fields of numbers)
  readonly whole?: boolean;
  readonly min?: number;
  /** `min` itself is refused ("above 0"). */
  readonly above?: boolean;
  readonly max?: number;
  /** 0 is allowed besides min..max (the rate limit: 0 = none, else at least 0.001). */
  readonly zeroToo?: boolean;
  /** Word of the unit (smsgw-config.fields.unit.<unit>), e.g. seconds. */
  readonly unit?: string;
  /** What 0 means (smsgw-config.fields.zero.<word>), for the help. */
  readonly zero?: string;
  /**
   * The value becomes a timer: milliseconds per unit, or per value of another field (the ask node's unit
   * select). The largest value is what Node's timers hold (TIMER_MAX_MS).
   */
  readonly timer?:
    | number
    | {
        readonly field: string;
        readonly ms: Readonly<Record<string, number>>;
        /** The unit word of each value of that field. */
        readonly units: Readonly<Record<string, string>>;
      };

  // text
  readonly format?: TextFormat;
  /** Kept as typed (a separator's spaces count); else trimmed. */
  readonly keepSpaces?: boolean;

  // choice
  readonly options?: readonly (string | number | boolean)[];

  // typed: the types offered (the first is the default) and what a value is judged as
  readonly types?: readonly string[];
  readonly of?: 'number' | 'text';

  // config reference
  readonly configType?: string;
}

export type FieldTable = Readonly<Record<string, Field>>;

/** Why a value is refused: a word of `smsgw-config.fields.why` and what it needs. */
export interface Why {
  readonly key: 'must' | 'required' | 'env' | 'type' | 'property' | 'jsonata' | 'json' | 'envName';
  readonly name?: string;
  readonly type?: string;
}

export type Verdict =
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly why: Why };

export interface JudgeContext {
  /** The value of another field of the same node (units, conditions). */
  sibling(name: string): unknown;
  env: FieldEnv;
  /** A value from a msg (an override, or a typed field evaluated for a msg): not a setting. */
  msg?: boolean;
}

/** A refused field: its name, its label key and why. */
export interface Problem {
  readonly field: string;
  readonly label: string;
  readonly why: Why;
}

const ok = (value: unknown): Verdict => ({ ok: true, value });
const no = (key: Why['key'], more: Omit<Why, 'key'> = {}): Verdict => ({ ok: false, why: { key, ...more } });

/** `${NAME}` (or the older `$(NAME)`) left as it is: Node-RED replaces it at deploy when NAME is set. */
export function envReference(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const m = /^\$\{(\S+)\}$/.exec(v) ?? /^\$\((\S+)\)$/.exec(v);
  return m ? m[1] : undefined;
}

/** Text as the checker compares it (numbers from an older editor as text). */
const textOf = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;

function isBlank(field: Field, v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v !== 'string') return false;
  return field.keepSpaces ? v === '' : v.trim() === '';
}

/** ms per unit of a timer field (from its unit field when it has one). */
function timerMs(field: Field, ctx: JudgeContext): number | undefined {
  const t = field.timer;
  if (t === undefined) return undefined;
  if (typeof t === 'number') return t;
  return t.ms[unitOf(t, ctx)];
}

/** The value of a timer's unit field, or its first unit (the dialog's default) when it has none it knows. */
function unitOf(
  t: { field: string; ms: Readonly<Record<string, number>> },
  ctx: Pick<JudgeContext, 'sibling'>,
): string {
  const unit = String(ctx.sibling(t.field));
  return Object.prototype.hasOwnProperty.call(t.ms, unit) ? unit : Object.keys(t.ms)[0]!;
}

/** The range a number field allows now: min, max (timers included) and whether min itself is refused. */
export function rangeOf(
  field: Field,
  ctx: Pick<JudgeContext, 'sibling'>,
): { min?: number; max?: number; above: boolean } {
  const ms = timerMs(field, ctx as JudgeContext);
  let max = field.max;
  if (ms !== undefined) {
    const timerMax = Math.floor(TIMER_MAX_MS / ms);
    max = max === undefined ? timerMax : Math.min(max, timerMax);
  }
  return { min: field.min, max, above: field.above === true };
}

function judgeNumber(field: Field, v: unknown, ctx: JudgeContext): Verdict {
  const text = textOf(v);
  const n =
    typeof v === 'number' ? v : text === undefined || typeof v === 'boolean' ? NaN : Number(text.trim());
  if (!Number.isFinite(n)) return no('must');
  if (field.whole && !Number.isSafeInteger(n)) return no('must');
  if (field.zeroToo && n === 0) return ok(0);
  const { min, max, above } = rangeOf(field, ctx);
  if (min !== undefined && (above ? n <= min : n < min)) return no('must');
  if (max !== undefined && n > max) return no('must');
  return ok(n);
}

const HTTP_URL = /^https?:\/\/[^\s/?#]+[^\s]*$/i;
const REDIS_URL = /^rediss?:\/\/[^\s]+$/i;
/** user:password@ in a URL (a user name alone is fine). */
const URL_PASSWORD = /^[a-z][a-z0-9+.-]*:\/\/[^@/]*:[^@/]*@/i;
const HEX = /^(?:[0-9a-fA-F]{2})+$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** A list of words as the ask node reads its answers ("1, ok; yes"): NFKC, lower case, no blanks. */
export const answerWords = (text: unknown): string[] =>
  String(text ?? '')
    .normalize('NFKC')
    .split(/[,;\s]+/)
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '');

const readableWord = (w: string): boolean => /^[\p{L}\p{N}]+$/u.test(w);

/** The error codes the heartbeat node's gateway watch can count as failed calls (the gateway's own failures). */
export const FAILURE_CODES: readonly string[] = [
  'NETWORK',
  'TIMEOUT',
  'HTTP',
  'AUTH',
  'FAULT',
  'PARSE',
  'REJECTED',
];

/** A list of error codes as the gateway watch reads it ("network, AUTH"): upper case, no blanks. */
export const errorCodes = (text: unknown): string[] =>
  String(text ?? '')
    .split(/[,;\s]+/)
    .map((s) => s.trim().toUpperCase())
    .filter((s) => s !== '');

/**
 * The opt-out keywords of a gateway configuration (its Opt-out tab): the reply that is exactly one of these words
 * (src/nodes/optout/keywords.ts) adds the sender to the list (stop), takes it off (start) or asks for help. English
 * and German by default; each list a setting of its own, blank: these.
 */
export const OPT_OUT_WORDS = {
  optOutStop: 'STOP, STOPP, ABMELDEN, UNSUBSCRIBE, END, QUIT, CANCEL',
  optOutStart: 'START, UNSTOP, ANMELDEN',
  optOutHelp: 'HELP, HILFE',
} as const;

/** The format of each keyword list's field, and the field of each format. */
const WORD_FIELDS: Readonly<Record<string, keyof typeof OPT_OUT_WORDS>> = {
  stopWords: 'optOutStop',
  startWords: 'optOutStart',
  helpWords: 'optOutHelp',
};

/** Longest keyword (a reply longer than this is never one) and most words in one list. */
export const KEYWORD_MAX = 32;
const KEYWORDS_MAX = 50;

/**
 * A keyword list as a setting holds it ("STOP, Stopp; END"): each word case-folded (NFKC, lower case), no blanks,
 * no repeats. Words are separated by commas, semicolons or white space.
 */
export const keywordList = (text: unknown): string[] => {
  const out: string[] = [];
  for (const w of String(text ?? '').split(/[,;\s]+/)) {
    const word = w.normalize('NFKC').toLowerCase();
    if (word !== '' && !out.includes(word)) out.push(word);
  }
  return out;
};

/** A keyword list's words, or undefined when one is no word a reply could be (too long, punctuation only). */
function keywordsOf(text: string): string[] | undefined {
  const words = keywordList(text);
  if (words.length > KEYWORDS_MAX) return undefined;
  return words.every((w) => w.length <= KEYWORD_MAX && /[\p{L}\p{N}]/u.test(w)) ? words : undefined;
}

/**
 * How the send UDH node reads a text (its data format auto, hex or base64): 'hex', 'base64', or undefined when the
 * text is neither (spaces left out).
 */
export function udhEncoding(text: string, format: unknown): 'hex' | 'base64' | undefined {
  const t = text.replace(/\s+/g, '');
  const hex = HEX.test(t);
  if (format === 'hex' || ((format === 'auto' || format === undefined || format === '') && hex))
    return hex ? 'hex' : undefined;
  return t.length % 4 === 0 && BASE64.test(t) ? 'base64' : undefined;
}

/** A date as the send nodes take one: epoch milliseconds or any text Date parses (ISO 8601 recommended). */
export function dateOf(v: unknown): number {
  if (typeof v === 'number') return new Date(v).getTime();
  // A Date, also from another realm (a function node's): judged by its shape.
  if (typeof v === 'object' && v !== null && typeof (v as { getTime?: unknown }).getTime === 'function')
    return (v as { getTime(): number }).getTime();
  const t = textOf(v);
  return t === undefined ? NaN : new Date(t.trim()).getTime();
}

/** An IANA time zone name as the Intl of this side knows it (Europe/Berlin, UTC). */
function isTimeZoneName(t: string): boolean {
  if (t === '') return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: t });
    return true;
  } catch {
    return false;
  }
}

function judgeText(field: Field, v: unknown, ctx: JudgeContext): Verdict {
  if (field.format === 'date') return Number.isNaN(dateOf(v)) ? no('must') : ok(v);
  const raw = textOf(v);
  // Bytes, lists, objects from a msg: the node converts them (a setting is always text).
  if (raw === undefined) return ctx.msg ? ok(v) : no('must');
  const t = field.keepSpaces ? raw : raw.trim();
  switch (field.format) {
    case 'url':
      return HTTP_URL.test(t) ? ok(t) : no('must');
    case 'proxyUrl':
      return HTTP_URL.test(t) && !URL_PASSWORD.test(t) ? ok(t) : no('must');
    case 'redisUrl':
      return REDIS_URL.test(t) && !URL_PASSWORD.test(t) ? ok(t) : no('must');
    case 'country': {
      const code = t.toUpperCase();
      return COUNTRY_CODES.includes(code) ? ok(code) : no('must');
    }
    case 'path':
      return /^\/\S*$/.test(t) ? ok(t) : no('must');
    case 'callPath':
      return /^(\/[A-Za-z0-9_\-.~]+)+$/.test(t) ? ok(t) : no('must');
    case 'callName':
      return /^[A-Za-z_][A-Za-z0-9_.-]*$/.test(t) ? ok(t) : no('must');
    case 'separator':
      return /[\r\n;]/.test(t) ? no('must') : ok(t);
    // Answer words are letters and digits only: the reply grammar reads nothing else as a word.
    case 'answerWords':
      return answerWords(t).every(readableWord) ? ok(t) : no('must');
    case 'passAnswers': {
      const ack = answerWords(ctx.sibling('ack'));
      const pass = answerWords(t);
      // A blank Acknowledge beside these words is refused on Acknowledge (one field red, not two).
      if (!pass.every(readableWord) || pass.some((p) => ack.includes(p))) return no('must');
      return ok(t);
    }
    case 'resolveAnswers': {
      const taken = [...answerWords(ctx.sibling('ack')), ...answerWords(ctx.sibling('pass'))];
      const resolve = answerWords(t);
      return resolve.every(readableWord) && !resolve.some((r) => taken.includes(r)) ? ok(t) : no('must');
    }
    case 'clock': {
      // HH:MM of a 24-hour day (quiet hours); "8:00" is taken as "08:00".
      const m = /^(\d{1,2}):(\d{2})$/.exec(t);
      return m && Number(m[1]) < 24 && Number(m[2]) < 60
        ? ok(`${m[1]!.padStart(2, '0')}:${m[2]}`)
        : no('must');
    }
    case 'timeZone':
      return isTimeZoneName(t) ? ok(t) : no('must');
    case 'errorCodes': {
      const codes = errorCodes(t);
      return codes.length > 0 && codes.every((c) => FAILURE_CODES.includes(c)) ? ok(t) : no('must');
    }
    case 'udhData':
      return udhEncoding(t, ctx.sibling('dataFormat')) === undefined ? no('must') : ok(t);
    case 'stopWords':
    case 'startWords':
    case 'helpWords': {
      // One reply cannot both stop and start: no word may be in two lists (a blank one holds its defaults).
      const own = WORD_FIELDS[field.format]!;
      const words = keywordsOf(t);
      if (words === undefined || words.length === 0) return no('must');
      for (const other of Object.keys(OPT_OUT_WORDS) as (keyof typeof OPT_OUT_WORDS)[]) {
        if (other === own) continue;
        const v = ctx.sibling(other);
        const theirs = keywordList(typeof v === 'string' && v.trim() !== '' ? v : OPT_OUT_WORDS[other]);
        if (words.some((w) => theirs.includes(w))) return no('must');
      }
      return ok(words.join(', '));
    }
    default:
      return ok(t);
  }
}

function judgeChoice(field: Field, v: unknown): Verdict {
  const t = textOf(v);
  const found = (field.options ?? []).find((o) => String(o) === (t === undefined ? undefined : t.trim()));
  return found === undefined ? no('must') : ok(found);
}

/** true / false, also as the text a change node or a query string gives ("true", " FALSE "). */
function judgeFlag(v: unknown): Verdict {
  if (typeof v === 'boolean') return ok(v);
  const t = typeof v === 'string' ? v.trim().toLowerCase() : undefined;
  if (t === 'true') return ok(true);
  if (t === 'false') return ok(false);
  return no('must');
}

/** A context store prefix of a flow/global typedInput value ("#:(file)::name") left out. */
const withoutStore = (t: string): string => t.replace(/^#:\(\S+?\)::/, '');

/** A typedInput field's setting: the type must be offered; literal types are judged now, the others for a msg. */
function judgeTyped(field: Field, v: unknown, ctx: JudgeContext, type: unknown): Verdict {
  const types = field.types ?? ['str'];
  const t = typeof type === 'string' && type !== '' ? type : types[0]!;
  if (!types.includes(t)) return no('type', { type: t });
  const text = textOf(v) ?? '';
  switch (t) {
    case 'msg':
    case 'flow':
    case 'global':
      return ctx.env.property(withoutStore(text.trim())) ? ok(v) : no('property', { type: t });
    case 'jsonata':
      return text.trim() !== '' && ctx.env.jsonata(text) ? ok(v) : no('jsonata');
    case 'env':
      return text.trim() === '' ? no('envName') : ok(v);
    case 'json':
      try {
        JSON.parse(text);
      } catch {
        return no('json');
      }
      return ok(v);
    case 'str':
    case 'num':
      return judgeValue(field, v, ctx);
    default:
      // bool, date, bin, re and the node's own lists: the widget offers only valid values
      return ok(v);
  }
}

/**
 * A value as a field of this rule takes it, whatever it came from: a setting, a literal typedInput value, a msg
 * override or a typed field evaluated for a msg.
 */
export function judgeValue(field: Field, v: unknown, ctx: JudgeContext): Verdict {
  const kind = field.kind === 'typed' ? (field.of ?? 'text') : field.kind;
  if (isBlank(field, v)) {
    // A msg property that is there but blank replaces nothing: refused rather than taken as the node's setting.
    if (ctx.msg && field.kind !== 'typed' && field.kind !== 'text') return no('must');
    if (field.blank === 'required') return no('required');
    // "Any reply acknowledges" cannot hold beside words that pass on: a reply would never pass on.
    if (field.blank === 'anyReply' && answerWords(ctx.sibling('pass')).length > 0) return no('must');
    return ok(field.blank === 'default' ? (field.default ?? field.value) : undefined);
  }
  switch (kind) {
    case 'number':
      return judgeNumber(field, v, ctx);
    case 'text':
      return judgeText(field, v, ctx);
    case 'choice':
      return judgeChoice(field, v);
    case 'flag':
      return judgeFlag(v);
    case 'property': {
      const t = textOf(v);
      const expr = t === undefined ? '' : t.trim().replace(/^msg\./, '');
      return expr !== '' && ctx.env.property(expr) ? ok(expr) : no('must');
    }
    default:
      return ok(v);
  }
}

/** The verdict on a node's setting `name` (deploy time, or the dialog). */
export function judgeSetting(table: FieldTable, name: string, v: unknown, ctx: JudgeContext): Verdict {
  const field = table[name];
  if (field === undefined) return ok(v);
  if (field.when && !field.when.is.some((x) => String(x) === String(ctx.sibling(field.when!.field))))
    return ok(undefined);
  if (field.kind === 'internal' || field.kind === 'config') return ok(v);
  const env = envReference(v);
  if (env !== undefined) return no('env', { name: env });
  if (field.kind === 'typed') {
    const type = ctx.sibling(`${name}Type`);
    const ref = envReference(type);
    if (ref !== undefined) return no('env', { name: ref });
    // A field the node does not have at all (written by hand, saved by an older version): the dialog's default.
    if ((v === undefined || v === null) && (type === undefined || type === null || type === ''))
      return judgeTyped(field, field.value, ctx, undefined);
    return judgeTyped(field, v, ctx, type);
  }
  return judgeValue(field, v, ctx);
}

/** Every field of a node judged at once: the values the node works with, and every problem. */
export function judgeNode(
  table: FieldTable,
  values: Readonly<Record<string, unknown>>,
  env: FieldEnv,
): { values: Record<string, unknown>; problems: Problem[] } {
  const ctx: JudgeContext = { sibling: (n) => values[n], env };
  const out: Record<string, unknown> = {};
  const problems: Problem[] = [];
  for (const [name, field] of Object.entries(table)) {
    const v = judgeSetting(table, name, values[name], ctx);
    if (v.ok) out[name] = v.value;
    else problems.push({ field: name, label: field.label, why: v.why });
  }
  return { values: out, problems };
}

// ---- words ----

/** The shared words live in the config node's catalogue. */
export const MODULE = '@smsgw/node-red-sms-gateway';
const WORDS = `${MODULE}/smsgw-config:smsgw-config.fields.`;

/** A label key ("smsgw-ask.label.wait") as a fully qualified key of its catalogue. */
export const qualified = (key: string): string => `${MODULE}/${key.slice(0, key.indexOf('.'))}:${key}`;

const fmt = (n: number): string => String(n);

/** "a whole number from 0", "a number above 0, at most 2147483", "one of s, min, h": what the field takes. */
export function mustText(field: Field, t: Translate, ctx: Pick<JudgeContext, 'sibling'>): string {
  const kind = field.kind === 'typed' ? (field.of ?? 'text') : field.kind;
  if (kind === 'number') {
    const { min, max, above } = rangeOf(field, ctx);
    const base = field.whole ? 'whole' : 'number';
    const shape =
      min === undefined
        ? max === undefined
          ? 'any'
          : 'max'
        : max === undefined
          ? above
            ? 'above'
            : 'min'
          : above
            ? 'aboveMax'
            : 'minMax';
    const key = field.zeroToo ? `zeroOr${shape[0]!.toUpperCase()}${shape.slice(1)}` : shape;
    let text = t(`${WORDS}must.${base}.${key}`, {
      min: fmt(min ?? 0),
      max: fmt(max ?? 0),
    });
    const unit =
      field.unit ??
      (typeof field.timer === 'object' ? field.timer.units[unitOf(field.timer, ctx)] : undefined);
    if (unit) text += ` (${t(`${WORDS}unit.${unit}`)})`;
    return text;
  }
  if (kind === 'choice')
    return t(`${WORDS}must.choice`, { options: (field.options ?? []).map((o) => String(o)).join(', ') });
  if (kind === 'flag') return t(`${WORDS}must.flag`);
  if (kind === 'property') return t(`${WORDS}must.property`);
  return t(`${WORDS}must.${field.format ?? 'text'}`);
}

/** What blank means, in words (undefined when blank is refused). */
export function blankText(field: Field, t: Translate): string | undefined {
  const blank = field.blank ?? 'none';
  if (blank === 'required') return undefined;
  const value = String(field.default ?? field.value);
  return t(`${WORDS}blank.${blank}`, { value });
}

/** One refused field in words: "Per hour: a whole number from 0 (blank: no limit)". */
export function reasonText(
  field: Field,
  why: Why,
  t: Translate,
  ctx: Pick<JudgeContext, 'sibling'>,
  subject?: string,
): string {
  const label = subject ?? t(qualified(field.label));
  const must = mustText(field, t, ctx);
  switch (why.key) {
    case 'required':
      return t(`${WORDS}reason.required`, { label, must });
    case 'must': {
      // A list or a checkbox is blank only in a node saved before it existed: not worth saying.
      const blank = field.kind === 'choice' || field.kind === 'flag' ? undefined : blankText(field, t);
      return blank === undefined || subject !== undefined
        ? t(`${WORDS}reason.must`, { label, must })
        : t(`${WORDS}reason.mustOrBlank`, { label, must, blank });
    }
    default:
      return t(`${WORDS}reason.${why.key}`, { label, name: why.name ?? '', type: why.type ?? '' });
  }
}

/**
 * ISO 3166 codes the recipient check knows (libphonenumber-js's metadata; test/nodes/fields.test.ts keeps the list
 * equal to it): a default country outside it is refused in the dialog as at deploy.
 */
export const COUNTRY_CODES: readonly string[] = (
  'AC AD AE AF AG AI AL AM AO AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BW BY BZ ' +
  'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO ' +
  'FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GT GU GW GY HK HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO ' +
  'JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ ' +
  'MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PR PS PT PW PY QA RE ' +
  'RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TA TC TD TG TH TJ TK TL TM TN TO TR ' +
  'TT TV TW TZ UA UG US UY UZ VA VC VE VG VI VN VU WF WS XK YE YT ZA ZM ZW'
).split(' ');
