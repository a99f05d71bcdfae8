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
  from: Int32Array;
  to: Int32Array;
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
 * as UTF-8 where it is valid, byte by byte as Latin-1 where not) and, with `plus`, `+` as a space. A decoded
 * text is never longer than its source, so the maps fit arrays of the source's length.
 */
function decodeLevel(src: Level, plus: boolean): Level {
  const s = src.text;
  const parts: string[] = [];
  const from = new Int32Array(s.length);
  const to = new Int32Array(s.length);
  let n = 0;
  const put = (chars: string, a: number, b: number): void => {
    parts.push(chars);
    for (let k = 0; k < chars.length; k++, n++) {
      from[n] = src.from[a]!;
      to[n] = src.to[b - 1]!;
    }
  };
  const special = plus ? /[&%+]/g : /[&%]/g;
  let i = 0;
  while (i < s.length) {
    special.lastIndex = i;
    const hit = special.exec(s);
    const j = hit ? hit.index : s.length;
    if (j > i) {
      // a plain run: copied whole, each character mapped to itself
      parts.push(s.slice(i, j));
      for (let k = i; k < j; k++, n++) {
        from[n] = src.from[k]!;
        to[n] = src.to[k]!;
      }
      i = j;
      if (!hit) break;
    }
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
      let j2 = i;
      while (j2 < s.length && s[j2] === '%' && isHexPair(s, j2)) {
        bytes.push(parseInt(s.slice(j2 + 1, j2 + 3), 16));
        j2 += 3;
      }
      let b = 0;
      while (b < bytes.length) {
        const len0 = sequenceLength(bytes[b]!);
        let chars: string | undefined;
        if (len0 > 1 && b + len0 <= bytes.length) {
          try {
            chars = utf8.decode(Uint8Array.from(bytes.slice(b, b + len0)));
          } catch {
            chars = undefined;
          }
        }
        const len = chars === undefined ? 1 : len0;
        put(chars ?? String.fromCharCode(bytes[b]!), i + b * 3, i + (b + len) * 3);
        b += len;
      }
      i = j2;
      continue;
    } else if (c === '+' && plus) {
      put(' ', i, i + 1);
      i += 1;
      continue;
    }
    put(c, i, i + 1);
    i += 1;
  }
  return { text: parts.join(''), from: from.subarray(0, n), to: to.subarray(0, n) };
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
  const from = new Int32Array(s.length);
  const to = new Int32Array(s.length);
  for (let i = 0; i < s.length; i++) {
    from[i] = i;
    to[i] = i + 1;
  }
  return { text: s, from, to };
};

const MAY_BE_ENCODED = /[&%+]/;
const LEVELS = 3;
/**
 * A long text (a hostile fault string may be megabytes) is read in pieces of this many characters, each with
 * enough of its neighbours around it to hold any spelling of a password that starts in it: the maps of the
 * decoding stay small.
 */
const WINDOW = 64 * 1024;
/** Characters one character of a password may take in the text: `&#x10FFFF;` encoded twice more, say. */
const MAX_SPELLING = 32;

/** Ranges of `piece` (starting at `offset` of the whole text) holding a secret that starts in [from, to). */
function collect(
  piece: string,
  offset: number,
  from: number,
  to: number,
  secrets: readonly string[],
  out: Array<[number, number]>,
): void {
  const found: Array<[number, number]> = [];
  const raw = identity(piece);
  for (const s of secrets) findWhole(raw, s, found);
  if (MAY_BE_ENCODED.test(piece)) {
    const spaced = secrets.some((s) => s.includes(' '));
    for (const plus of spaced ? [false, true] : [false]) {
      let level = raw;
      for (let n = 0; n < LEVELS; n++) {
        const next = decodeLevel(level, plus);
        if (next.text === level.text) break;
        level = next;
        for (const s of secrets) findWhole(level, s, found);
        if (!MAY_BE_ENCODED.test(level.text)) break;
      }
    }
  }
  for (const [a, b] of found) if (a + offset >= from && a + offset < to) out.push([a + offset, b + offset]);
}

/**
 * Texts are cut after this many characters (marked with …): a message or detail of a hostile gateway may be
 * megabytes, and masking reads every character of it, in every spelling.
 */
export const MAX_CLEAN_CHARS = 64 * 1024;

/**
 * `text` with every whole-value occurrence of the secrets, in any spelling, replaced by the mask; a text longer
 * than MAX_CLEAN_CHARS is cut there first (a password across the cut is masked whole).
 */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  const list = secrets.filter((s) => s !== '');
  const cut = text.length > MAX_CLEAN_CHARS;
  if (list.length === 0 || text === '') return cut ? `${text.slice(0, MAX_CLEAN_CHARS)}…` : text;
  const scanned = cut ? MAX_CLEAN_CHARS : text.length;
  const ranges: Array<[number, number]> = [];
  if (text.length <= WINDOW) collect(text, 0, 0, text.length, list, ranges);
  else {
    const around = MAX_SPELLING * Math.max(...list.map((s) => s.length)) + MAX_SPELLING;
    for (let start = 0; start < scanned; start += WINDOW) {
      const from = Math.max(0, start - around);
      const to = Math.min(start + WINDOW, scanned);
      collect(text.slice(from, start + WINDOW + around), from, start, to, list, ranges);
    }
  }
  // Where the output ends: the whole text, or the cut (moved past a password that crosses it).
  let end = scanned;
  for (const [a, b] of ranges) if (a < end && b > end) end = b;
  if (ranges.length === 0) return cut ? `${text.slice(0, end)}…` : text;
  ranges.sort((a, b) => a[0] - b[0]);
  let out = '';
  let pos = 0;
  let [start, stop] = ranges[0]!;
  for (const [a, b] of ranges.slice(1)) {
    if (a <= stop) stop = Math.max(stop, b);
    else {
      out += text.slice(pos, start) + SECRET_MASK;
      pos = stop;
      [start, stop] = [a, b];
    }
  }
  out += text.slice(pos, start) + SECRET_MASK + text.slice(stop, Math.max(stop, end));
  return cut ? `${out}…` : out;
}

export function makeCleaner(...passwords: string[]): (s: string) => string {
  // Longest first: a password that contains another is masked whole.
  const secrets = [...new Set(passwords.filter((p) => typeof p === 'string' && p !== ''))].sort(
    (a, b) => b.length - a.length,
  );
  return (s) => maskSecrets(s, secrets);
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
