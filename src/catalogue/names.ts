import type { OperationDef } from '../catalogue/types';

/**
 * The typed method name of an operation: camelCase with acronyms as words
 * (`SendSMS` → `sendSms`, `QueryHLRJobsByJobID` → `queryHlrJobsByJobId`, `SMSCR` → `smscr`).
 */
export function methodName(operation: string | OperationDef): string {
  const name = typeof operation === 'string' ? operation : operation.name;
  const words = name.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+/g) ?? [name];
  return words
    .map((w, i) => {
      const lower = w.toLowerCase();
      return i === 0 ? lower : lower.charAt(0).toUpperCase() + lower.slice(1);
    })
    .join('');
}
