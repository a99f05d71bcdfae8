/**
 * Masking of passwords in texts that leave the client (error messages, body excerpts, fault details, warnings).
 *
 * A password can come back in any spelling a server or a proxy chooses: as is, percent-encoded (upper or lower
 * case hex, UTF-8 or Latin-1, even for plain letters), form-encoded (`+` for a space), as XML or HTML character
 * references (`Gr&#xFC;&#xDF;e`, `&#252;`), or encoded twice. Rather than listing spellings, the text is decoded
 * (up to three levels) with a map from each decoded character back to the characters it came from; a password
 * found in any level masks the original characters it came from.
 *
 * Only whole values are masked: an occurrence with a letter or digit right before or after it (where the
 * password itself begins or ends with one) is part of a longer word and stays. Masking fragments gives a short
 * password away: `p` masked inside words turns "response" into "res********onse". A password of a few characters
 * may still be a whole word of a text (and be masked there, showing where it stands), which is why the config
 * dialog warns about passwords shorter than 6 characters.
 */

export const SECRET_MASK = '********';

/** A text and, for each of its UTF-16 units, the range [from, to) of the original text it was decoded from. */
interface Level {
  text: string;
  from: number[];
  to: number[];
}

const REFERENCE_RE = /&(?:#[xX]([0-9A-Fa-f]{1,8})|#([0-9]{1,10})|(amp|lt|gt|quot|apos));/y;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const HEX = /^[0-9A-Fa-f]{2}$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

const isHexPair = (s: string, i: number): boolean => HEX.test(s.slice(i + 1, i + 3));

/** Bytes a UTF-8 sequence starting with `lead` has (0 for a byte that cannot start one). */
function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/**
 * One level of decoding of `src`: character references, the five XML entities, %XX escapes (a run of them read
 * as UTF-8 where it is valid, byte by byte as Latin-1 where not) and, with `plus`, `+` as a space.
 */
function decodeLevel(src: Level, plus: boolean): Level {
  const s = src.text;
  let text = '';
  const from: number[] = [];
  const to: number[] = [];
  const put = (chars: string, a: number, b: number): void => {
    text += chars;
    for (let k = 0; k < chars.length; k++) {
      from.push(src.from[a]!);
      to.push(src.to[b - 1]!);
    }
  };
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (c === '&') {
      REFERENCE_RE.lastIndex = i;
      const m = REFERENCE_RE.exec(s);
      if (m) {
        const code = m[1] !== undefined ? parseInt(m[1], 16) : m[2] !== undefined ? Number(m[2]) : -1;
        const chars =
          m[3] !== undefined
            ? NAMED[m[3].toLowerCase()]
            : code >= 0 && code <= 0x10ffff
              ? String.fromCodePoint(code)
              : undefined;
        if (chars !== undefined) {
          put(chars, i, i + m[0].length);
          i += m[0].length;
          continue;
        }
      }
    } else if (c === '%' && isHexPair(s, i)) {
      // A run of escapes: the bytes of one or more characters.
      const bytes: number[] = [];
      let j = i;
      while (j < s.length && s[j] === '%' && isHexPair(s, j)) {
        bytes.push(parseInt(s.slice(j + 1, j + 3), 16));
        j += 3;
      }
      let b = 0;
      while (b < bytes.length) {
        const n = sequenceLength(bytes[b]!);
        let chars: string | undefined;
        if (n > 0 && b + n <= bytes.length) {
          try {
            chars = utf8.decode(Uint8Array.from(bytes.slice(b, b + n)));
          } catch {
            chars = undefined;
          }
        }
        const len = chars === undefined ? 1 : n;
        put(chars ?? String.fromCharCode(bytes[b]!), i + b * 3, i + (b + len) * 3);
        b += len;
      }
      i = j;
      continue;
    } else if (c === '+' && plus) {
      put(' ', i, i + 1);
      i += 1;
      continue;
    }
    put(c, i, i + 1);
    i += 1;
  }
  return { text, from, to };
}

const WORD_AT_END = /[\p{L}\p{N}_]$/u;
const WORD_AT_START = /^[\p{L}\p{N}_]/u;

/** Ranges of the original text that hold `secret` as a whole value in `level`. */
function findWhole(level: Level, secret: string, out: Array<[number, number]>): void {
  const t = level.text;
  const wordStart = WORD_AT_START.test(secret);
  const wordEnd = WORD_AT_END.test(secret);
  let at = t.indexOf(secret);
  while (at >= 0) {
    const end = at + secret.length;
    const joinedBefore = wordStart && WORD_AT_END.test(t.slice(Math.max(0, at - 2), at));
    const joinedAfter = wordEnd && WORD_AT_START.test(t.slice(end, end + 2));
    if (!joinedBefore && !joinedAfter) out.push([level.from[at]!, level.to[end - 1]!]);
    at = t.indexOf(secret, at + 1);
  }
}

const identity = (s: string): Level => {
  const from = new Array<number>(s.length);
  const to = new Array<number>(s.length);
  for (let i = 0; i < s.length; i++) {
    from[i] = i;
    to[i] = i + 1;
  }
  return { text: s, from, to };
};

const MAY_BE_ENCODED = /[&%+]/;
const LEVELS = 3;

/** `text` with every whole-value occurrence of the secrets, in any spelling, replaced by the mask. */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  const list = secrets.filter((s) => s !== '');
  if (list.length === 0 || text === '') return text;
  const ranges: Array<[number, number]> = [];
  const raw = identity(text);
  for (const s of list) findWhole(raw, s, ranges);
  if (MAY_BE_ENCODED.test(text)) {
    const spaced = list.some((s) => s.includes(' '));
    for (const plus of spaced ? [false, true] : [false]) {
      let level = raw;
      for (let n = 0; n < LEVELS; n++) {
        const next = decodeLevel(level, plus);
        if (next.text === level.text) break;
        level = next;
        for (const s of list) findWhole(level, s, ranges);
        if (!MAY_BE_ENCODED.test(level.text)) break;
      }
    }
  }
  if (ranges.length === 0) return text;
  ranges.sort((a, b) => a[0] - b[0]);
  let out = '';
  let pos = 0;
  let [start, end] = ranges[0]!;
  for (const [a, b] of ranges.slice(1)) {
    if (a <= end) end = Math.max(end, b);
    else {
      out += text.slice(pos, start) + SECRET_MASK;
      pos = end;
      [start, end] = [a, b];
    }
  }
  return out + text.slice(pos, start) + SECRET_MASK + text.slice(end);
}

export function makeCleaner(...passwords: string[]): (s: string) => string {
  // Longest first: a password that contains another is masked whole.
  const secrets = [...new Set(passwords.filter((p) => typeof p === 'string' && p !== ''))].sort(
    (a, b) => b.length - a.length,
  );
  return (s) => (secrets.length ? maskSecrets(s, secrets) : s);
}

/** A foreign error (undici, decoder) as a plain Error whose message and stack carry no secret. */
export function cleanCause(err: unknown, clean: (s: string) => string): unknown {
  if (!(err instanceof Error)) return typeof err === 'string' ? clean(err) : err;
  const copy = new Error(clean(err.message));
  copy.name = err.name;
  if (err.stack) copy.stack = clean(err.stack);
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') Object.assign(copy, { code });
  return copy;
}

/** A plain value (a fault's detail) with every string cleaned; the copy keeps its shape. */
export function cleanValue(value: unknown, clean: (s: string) => string): unknown {
  if (typeof value === 'string') return clean(value);
  if (Array.isArray(value)) return value.map((v) => cleanValue(v, clean));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[clean(k)] = cleanValue(v, clean);
    return out;
  }
  return value;
}
