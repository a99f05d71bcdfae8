/**
 * The unique reference a send carries in its Caption, so that after an ambiguous failure the job can be found
 * again (QueryJobInfoByJobCaption, GetJobs1) instead of being sent a second time.
 */
import { randomFillSync } from 'node:crypto';
import { GatewayError } from '../errors';

/** How the reference is added to the caller's caption. */
export interface ReferenceOptions {
  /** Characters of the random part (default 10, 4..32). Letters and digits only, so no gateway cleans them. */
  length?: number;
  /** Text between the caption and the reference (default ' #'). */
  separator?: string;
  /** Where the reference goes (default 'suffix'; 'prefix' survives a gateway that cuts long captions). */
  position?: 'suffix' | 'prefix';
}

/** Lower-case base32 without look-alikes (no 0/o, 1/l/i): readable in a job list, case-proof. */
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

export interface ResolvedReferenceOptions {
  readonly length: number;
  readonly separator: string;
  readonly position: 'suffix' | 'prefix';
}

export function resolveReferenceOptions(o: ReferenceOptions | undefined): ResolvedReferenceOptions {
  const length = o?.length ?? 10;
  if (!Number.isInteger(length) || length < 4 || length > 32)
    throw new GatewayError('CONFIG', 'reference length must be an integer from 4 to 32');
  const separator = o?.separator ?? ' #';
  if (typeof separator !== 'string' || /[\r\n;]/.test(separator))
    throw new GatewayError('CONFIG', 'reference separator must not contain ";" or line breaks');
  const position = o?.position ?? 'suffix';
  if (position !== 'suffix' && position !== 'prefix')
    throw new GatewayError('CONFIG', "reference position must be 'suffix' or 'prefix'");
  return { length, separator, position };
}

/**
 * Random bytes are drawn from the system 4 KiB at a time: one randomBytes() call per send cost ~10 µs, a tenth
 * of a whole SendSMS call's CPU (bench/profile-client.ts).
 */
const POOL_BYTES = 4096;
const pool = Buffer.allocUnsafe(POOL_BYTES);
let poolOffset = POOL_BYTES;

/** A new random reference (about 5 bits per character: 10 characters ≈ 50 bits). */
export function createReference(length = 10): string {
  if (poolOffset + length > POOL_BYTES) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  let out = '';
  for (let i = poolOffset; i < poolOffset + length; i++)
    out += ALPHABET[(pool[i] as number) % ALPHABET.length];
  poolOffset += length;
  return out;
}

/** True for a text that can serve as a reference: letters and digits, 4 to 64 characters. */
export const isReference = (s: unknown): s is string =>
  typeof s === 'string' && /^[A-Za-z0-9]{4,64}$/.test(s);

/** The caption as sent: the caller's caption with the reference added. */
export function captionWithReference(
  caption: string | undefined,
  reference: string,
  options: ResolvedReferenceOptions = resolveReferenceOptions(undefined),
): string {
  const base = caption ?? '';
  if (base === '') return reference;
  return options.position === 'prefix'
    ? `${reference}${options.separator}${base}`
    : `${base}${options.separator}${reference}`;
}

/** True when a caption the gateway reports carries this reference (gateways may clean, pad or re-case captions). */
export function captionHasReference(caption: unknown, reference: string): boolean {
  return typeof caption === 'string' && caption.toLowerCase().includes(reference.toLowerCase());
}
