/**
 * The record separator (Trennzeichen) of GetJobs1 and GetGetJobsWithStatusResult, checked before sending.
 * The service most likely appends the value verbatim after each record (docs/assumptions.md): the client sends
 * exactly what it will split on, never an escape whose meaning is the service's guess, never an empty value (the
 * records would run together), and refuses what could not be told from the fields of a record.
 */
import type { OperationDef } from '../catalogue/types';
import { GatewayError } from '../errors';

/** What an empty Trennzeichen (and an unset legacySeparator) becomes: a newline, the spec's "newline character". */
export const DEFAULT_RECORD_SEPARATOR = '\n';

const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t' };

/**
 * Letters, digits, blanks and `. , : - + /` occur in the JobId, cost and date fields; control characters other
 * than tab, CR and LF do not survive XML.
 */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\p{L}\p{N} .,:+\-/\\\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/u;

/**
 * The separator to send for `value`: `\n`, `\r`, `\t` typed as text become the characters; empty
 * means a newline. Throws why it cannot be split safely (the caller turns that into VALIDATION or CONFIG).
 */
export function recordSeparator(value: unknown): string {
  if (value === undefined || value === null || value === '') return DEFAULT_RECORD_SEPARATOR;
  if (typeof value !== 'string') throw new Error('the record separator must be a string');
  const sep = value.replace(/\\([nrt])/g, (_, c: string) => ESCAPES[c] as string);
  if (sep.includes(';') && sep !== ';') {
    throw new Error('a record separator holding ";" (the field separator) must be ";" alone');
  }
  const bad = UNSAFE.exec(sep);
  if (bad) {
    throw new Error(
      `the record separator ${JSON.stringify(value)} cannot be told from the fields of a record (it holds ` +
        `${JSON.stringify(bad[0])}): use a newline (default), \\t, | or another sign without letters, digits, ` +
        `blanks, backslashes or . , : - + /`,
    );
  }
  return sep;
}

/** The parameters of `op` with its Trennzeichen checked and made explicit (a VALIDATION error before sending). */
export function withRecordSeparator(
  op: OperationDef,
  values: Record<string, unknown>,
): Record<string, unknown> {
  if (op.result.legacy !== 'jobs') return values;
  try {
    return { ...values, Trennzeichen: recordSeparator(values.Trennzeichen) };
  } catch (e) {
    throw new GatewayError('VALIDATION', `parameter Trennzeichen: ${(e as Error).message}`, {
      service: op.service,
      operation: op.name,
      ambiguous: false,
    });
  }
}
