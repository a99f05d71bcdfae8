/**
 * Per-message overrides: a msg property that replaces one of the node's settings for that message. Each node type
 * declares its overrides once, in common/override-table.ts (msg property, the field it overrides, its type as the
 * help shows it, and the check its value must pass); the nodes read them through that table with the reader below,
 * and `npm run generate` writes the override lists of the node help (en-US, de) and docs/nodes.md from it
 * (scripts/gen-overrides.ts). A value may come from a function node (another JavaScript realm): checks judge it
 * by its shape, never by `instanceof`.
 */
import type { Node, NodeAPI, NodeMessage } from 'node-red';
import { GatewayError } from '../../errors';
import { isBytes, isDate } from '../../shape';
import { fieldNow, msgOverride } from './props';

/** How the node's own setting is read when the msg has no value. */
export type SettingKind =
  /** A typedInput (`<field>` and `<field>Type`): evaluated for each msg, then checked as a msg value is. */
  | 'typed'
  /** A checkbox, select or number: the node reads it once at deploy (with its own default). */
  | 'plain';

export interface Override<T = unknown> {
  /** The msg property a flow sets (`msg.<prop>`). */
  readonly prop: string;
  /** A second name for the same property, read first (`recipients` beside `recipient`). */
  readonly alias?: string;
  /** The node field it overrides (its name in the flow JSON) and how that is read; absent: the msg alone. */
  readonly field?: { readonly name: string; readonly kind: SettingKind };
  /** The value's type as the help shows it, e.g. `string | array`. */
  readonly type: string;
  /**
   * What the node uses of a value (converted); throws a VALIDATION GatewayError naming the property for a value it
   * cannot use. A typed field's value passes the same check.
   */
  readonly check: (value: unknown) => T;
}

/** One node type's overrides, keyed by the msg property. */
export type OverrideTable = Readonly<Record<string, Override>>;

/** What a checked override gives the node. */
export type OverrideValue<O> = O extends Override<infer T> ? T : never;

/** An entry whose check's result type TypeScript infers (for the tables). */
export const override = <T>(o: Override<T>): Override<T> => o;

/** The msg's own value of an override: its alias first, then its property; undefined and null count as absent. */
export function rawOverride(msg: NodeMessage, o: Override): unknown {
  return (o.alias === undefined ? undefined : msgOverride(msg, o.alias)) ?? msgOverride(msg, o.prop);
}

/** The msg's value of an override, checked; undefined when the msg does not set it. */
export function readOverride<T>(msg: NodeMessage, o: Override<T>): T | undefined {
  const raw = rawOverride(msg, o);
  return raw === undefined ? undefined : o.check(raw);
}

const isThenable = (v: unknown): v is PromiseLike<unknown> =>
  typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';

/** A node's overrides for its messages: the only way a node reads a msg property that replaces a setting. */
export class MsgOverrides<T extends OverrideTable> {
  constructor(
    private readonly table: T,
    private readonly RED: NodeAPI,
    private readonly node: Node,
    private readonly def: Readonly<Record<string, unknown>>,
  ) {}

  /** The msg's value of `key`, checked; undefined when the msg does not set it (the node's setting applies). */
  msg<K extends keyof T & string>(msg: NodeMessage, key: K): OverrideValue<T[K]> | undefined {
    return readOverride(msg, this.entry(key)) as OverrideValue<T[K]> | undefined;
  }

  /**
   * A typedInput field for this msg: the msg's value, else the field evaluated (msg, flow, global, env, JSONata...),
   * checked either way. The value itself where the field is evaluated at once, else a promise: `await` it.
   */
  field<K extends keyof T & string>(
    msg: NodeMessage,
    key: K,
  ): OverrideValue<T[K]> | Promise<OverrideValue<T[K]>> {
    const o = this.entry(key);
    if (o.field?.kind !== 'typed') throw new Error(`msg.${key} does not override a typed field`);
    const raw = rawOverride(msg, o);
    const check = o.check as (v: unknown) => OverrideValue<T[K]>;
    if (raw !== undefined) return check(raw);
    const value = fieldNow(this.RED, this.node, this.def, msg, o.field.name);
    return isThenable(value) ? Promise.resolve(value).then(check) : check(value);
  }

  private entry(key: string): Override {
    const o = this.table[key];
    if (o === undefined) throw new Error(`no msg override "${key}" in this node's table`);
    return o;
  }
}

// ---- checks shared by the tables (by shape: a value may come from another realm) ----

/** A refused value as an error shows it: short (a msg may carry a long text where a word belongs). */
const shown = (v: unknown): string => {
  if (typeof v === 'string') return `"${v.length > 40 ? `${v.slice(0, 40)}…` : v}"`;
  if (typeof v === 'object' && v !== null) return Array.isArray(v) ? 'an array' : 'an object';
  return String(v);
};

const invalid = (text: string): GatewayError => new GatewayError('VALIDATION', text, { ambiguous: false });

/** true / false, also as the text a change node or a query string gives ("true", "false"). */
export const flag =
  (prop: string) =>
  (v: unknown): boolean => {
    if (typeof v === 'boolean') return v;
    const t = typeof v === 'string' ? v.trim().toLowerCase() : undefined;
    if (t === 'true') return true;
    if (t === 'false') return false;
    throw invalid(`msg.${prop} must be true or false, got ${shown(v)}`);
  };

/** A number above 0 (also as text), in the unit the help names. */
export const positive =
  (prop: string, unit: string) =>
  (v: unknown): number => {
    const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
    if (!Number.isFinite(n) || n <= 0)
      throw invalid(`msg.${prop} must be a number of ${unit} above 0, got ${shown(v)}`);
    return n;
  };

/** One of a few words, exactly as the dialog's list saves them. */
export const oneOf =
  <W extends string>(prop: string, words: readonly W[]) =>
  (v: unknown): W => {
    const t = typeof v === 'string' ? v.trim() : undefined;
    if (t !== undefined && (words as readonly string[]).includes(t)) return t as W;
    throw invalid(`msg.${prop} must be one of ${words.join(', ')}, got ${shown(v)}`);
  };

/**
 * An object of named values (msg.params, msg.soapHeaders) from any realm (a function node's `{}` has that realm's
 * prototype): not an array, bytes or a Date (src/shape.ts judges them by shape).
 */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !isBytes(v) && !isDate(v);
}
