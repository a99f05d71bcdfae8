/**
 * Per-message overrides: a msg property that replaces one of the node's settings for that message. Each node type
 * declares its overrides once, in common/override-table.ts (msg property, the field it overrides, its type as the
 * help shows it, and the check its value must pass: the overridden field's rule, src/nodes/fields, where it has
 * one); the nodes read them through that table with the reader below,
 * and `npm run generate` writes the override lists of the node help (en-US, de) and docs/nodes.md from it
 * (scripts/gen-overrides.ts). A value may come from a function node (another JavaScript realm): checks judge it
 * by its shape, never by `instanceof`.
 */
import type { Node, NodeAPI, NodeMessage } from 'node-red';
import { isBytes, isDate } from '../../shape';
import type { ValueSource } from './fields';
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
   * The field whose declared rule (src/nodes/fields) judges the value, in that rule's words; absent: the check is
   * the override's own (the operation, the priority, the parameters object, the SOAP headers).
   */
  readonly rule?: string;
  /**
   * What the node uses of a value (converted); throws a VALIDATION GatewayError for a value it cannot use, naming
   * `source.subject` (msg.<prop>) or, for a typed field's value evaluated for the msg, the field's label.
   */
  readonly check: (value: unknown, source?: ValueSource) => T;
}

/** One node type's overrides, keyed by the msg property. */
export type OverrideTable = Readonly<Record<string, Override>>;

/** What a checked override gives the node. */
export type OverrideValue<O> = O extends Override<infer T> ? T : never;

/** An entry whose check's result type TypeScript infers (for the tables). */
export const override = <T>(o: Override<T>): Override<T> => o;

/** The msg's own value of an override: its alias first, then its property; undefined and null count as absent. */
export function rawOverride(msg: NodeMessage, o: Override): unknown {
  return namedOverride(msg, o)?.value;
}

/** The msg's own value of an override and the name it was found under. */
function namedOverride(msg: NodeMessage, o: Override): { value: unknown; prop: string } | undefined {
  const aliased = o.alias === undefined ? undefined : msgOverride(msg, o.alias);
  if (aliased !== undefined) return { value: aliased, prop: o.alias! };
  const value = msgOverride(msg, o.prop);
  return value === undefined ? undefined : { value, prop: o.prop };
}

/** The msg's value of an override, checked; undefined when the msg does not set it. */
export function readOverride<T>(msg: NodeMessage, o: Override<T>): T | undefined {
  const found = namedOverride(msg, o);
  return found === undefined ? undefined : o.check(found.value, { subject: `msg.${found.prop}` });
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
    const check = o.check as (v: unknown, source?: ValueSource) => OverrideValue<T[K]>;
    const found = namedOverride(msg, o);
    if (found !== undefined) return check(found.value, { subject: `msg.${found.prop}` });
    // The field's own value, judged by the same rule in the field's words.
    const value = fieldNow(this.RED, this.node, this.def, msg, o.field.name);
    return isThenable(value) ? Promise.resolve(value).then((v) => check(v)) : check(value);
  }

  private entry(key: string): Override {
    const o = this.table[key];
    if (o === undefined) throw new Error(`no msg override "${key}" in this node's table`);
    return o;
  }
}

// ---- checks shared by the tables (by shape: a value may come from another realm) ----

/**
 * An object of named values (msg.params, msg.soapHeaders) from any realm (a function node's `{}` has that realm's
 * prototype): not an array, bytes or a Date (src/shape.ts judges them by shape).
 */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !isBytes(v) && !isDate(v);
}
