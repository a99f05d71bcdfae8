/** What every operation handler gets: the state, the job engine, the options and the current time. */
import type { CallContext, ParamValues } from '../contract';
import type { Duplicates } from './duplicates';
import type { JobEngine } from './lifecycle';
import type { AccountState } from './model';
import type { CaptionMatch, ResolvedOptions } from './options';
import type { Store } from './store';
import { bytesOf, isBytes, isDate, timeOf } from '../../shape';

export interface OpEnv {
  readonly store: Store;
  readonly engine: JobEngine;
  readonly opts: ResolvedOptions;
  /** The options' captionMatch, or what the control API set since. */
  readonly captionMatch: CaptionMatch;
  readonly duplicates: Duplicates;
  readonly now: number;
  readonly ctx: CallContext;
}

/** A handler that runs after authentication succeeded. */
export type AccountHandler = (env: OpEnv, state: AccountState, p: ParamValues) => unknown;

// Readers of decoded parameters (contract.ts conventions), tolerant of a missing or mistyped value.
export const str = (p: ParamValues, name: string): string | undefined => {
  const v = p[name];
  return typeof v === 'string' ? v : undefined;
};
export const num = (p: ParamValues, name: string): number => {
  const v = p[name];
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
};
export const dateMs = (p: ParamValues, name: string): number | null => {
  const v = p[name];
  return isDate(v) && !Number.isNaN(timeOf(v)) ? timeOf(v) : null;
};
export const list = (p: ParamValues, name: string): unknown[] | undefined => {
  const v = p[name];
  return Array.isArray(v) ? v : undefined;
};
export const bytes = (p: ParamValues, name: string): Buffer | undefined => {
  const v = p[name];
  return isBytes(v) ? bytesOf(v) : undefined;
};
