/**
 * The hard cap on a message's content. No SMS is longer than a few thousand characters (10
 * concatenated segments of 153 GSM characters: 1,530), yet a 10 MB text took 3-8 s of segment analysis before
 * it was refused, and with the segment checks off it was sent. Every send path checks the cap first, in O(1)
 * (a string's or byte array's length), before any analysis, copy or storage, and whatever the segment checks
 * say: the typed client, invoke(), the outbox, the nodes and the editor's routes.
 */
import { count } from '../count';
import { isBytes } from '../shape';

/** The most characters of a text (UTF-16 code units, JavaScript's `length`) or bytes of data: 64 KiB. */
export const MAX_CONTENT_LENGTH = 65_536;

/**
 * The parameters that carry a message's content: its text (SMSText, SMSCR's Msg, the binary sends' strMsg) or
 * its data (SendUDH's hex and SendBinData2's base64 text, SendBinData's bytes).
 */
export const CONTENT_PARAMS: readonly string[] = ['SMSText', 'Msg', 'strMsg', 'Data'];

/** The length of a text or of bytes (a Uint8Array or a byte array) in O(1); undefined for anything else. */
function lengthOf(v: unknown): [number, string] | undefined {
  if (typeof v === 'string') return [v.length, 'characters'];
  if (isBytes(v)) return [v.byteLength, 'bytes'];
  if (Array.isArray(v)) return [v.length, 'bytes'];
  return undefined;
}

/** Why `length` (of `unit`) is over the cap ("SMSText: 10,485,760 characters, at most 65,536"), or undefined. */
export function overCap(name: string, length: number, unit: string): string | undefined {
  if (length <= MAX_CONTENT_LENGTH) return undefined;
  return `${name}: ${count(length)} ${unit}, at most ${count(MAX_CONTENT_LENGTH)} (no SMS is that long)`;
}

/** Why the text or bytes `v` are over the cap, or undefined (also for any other value). O(1). */
export function overContentCap(name: string, v: unknown): string | undefined {
  const length = lengthOf(v);
  return length === undefined ? undefined : overCap(name, length[0], length[1]);
}

/** The first content parameter of `params` over the cap, as overContentCap says it; undefined when none is. */
export function contentCapProblem(params: Readonly<Record<string, unknown>>): string | undefined {
  for (const name of CONTENT_PARAMS) {
    const problem = overContentCap(name, params[name]);
    if (problem !== undefined) return problem;
  }
  return undefined;
}
