/**
 * The editor's side of the field rules, run in the browser from resources/fields.js (never by the runtime): each
 * node's HTML takes each field of its `defaults` from `smsgwFields.field('<type>')`, whose validators are the checker of rule.ts
 * with Node-RED's own property and JSONata parsers. A refused value turns the field red and the tooltip says why,
 * in the words the runtime uses at deploy. A `${NAME}` is left to the runtime: Node-RED's editor takes it as valid
 * before any validator runs (it cannot see the runtime's environment), so the field says it is resolved at deploy.
 */
import { FIELDS } from './index';
import {
  blankText,
  envReference,
  judgeSetting,
  MODULE,
  reasonText,
  type Field,
  type FieldEnv,
  type JudgeContext,
  type Translate,
} from './rule';

/** The few editor globals used here (Node-RED's RED, jQuery, the editor's JSONata). */
interface Jq {
  length: number;
  attr(name: string, value?: string | null): Jq & string;
  is(selector: string): boolean;
  val(): unknown;
  data(key: string, value?: unknown): unknown;
  on(events: string, fn: () => void): Jq;
}
interface EditorNode {
  id: string;
  type: string;
  _def?: { category?: string };
  [field: string]: unknown;
}
interface EditorRED {
  _: Translate;
  utils: { validatePropertyExpression(expr: string): unknown };
  nodes: { getType(type: string): { category?: string } | undefined };
}
declare const RED: EditorRED;
declare const $: (selector: string) => Jq;
declare const jsonata: (expr: string) => unknown;

type Spec = Record<string, unknown>;

const ENV: FieldEnv = {
  property: (expr) => RED.utils.validatePropertyExpression(expr) === true,
  jsonata: (expr) => {
    try {
      jsonata(expr);
      return true;
    } catch {
      return false;
    }
  },
};

const t: Translate = (key, params) => RED._(key, params);

/** The node whose dialog is open (one node and one config node at most): its fields are read from the dialog. */
const editing: { node?: EditorNode; config?: EditorNode } = {};

const isConfig = (node: EditorNode): boolean =>
  (node._def?.category ?? RED.nodes.getType(node.type)?.category) === 'config';

const prefixOf = (node: EditorNode): string => (isConfig(node) ? '#node-config-input-' : '#node-input-');

/** Another field's value: from the open dialog while the node is edited, else as the node holds it. */
function sibling(node: EditorNode, name: string): unknown {
  const open = isConfig(node) ? editing.config : editing.node;
  if (open === node) {
    const input = $(prefixOf(node) + name);
    if (input.length > 0) return input.is('[type=checkbox]') ? input.is(':checked') : input.val();
  }
  return node[name];
}

/** Node-RED's validator of one field: true, or the reason (Node-RED 3+ shows it in the field's tooltip). */
function validator(
  type: string,
  name: string,
): (this: EditorNode, v: unknown, opt?: unknown) => true | string {
  return function (this: EditorNode, v: unknown, _opt?: unknown): true | string {
    const table = FIELDS[type]!;
    const ctx: JudgeContext = { sibling: (n) => sibling(this, n), env: ENV };
    const verdict = judgeSetting(table, name, v, ctx);
    return verdict.ok ? true : reasonText(table[name]!, verdict.why, t, ctx);
  };
}

/**
 * A node type's `defaults` for RED.nodes.registerType, one field at a time (the HTML lists the fields inline, as
 * the Flow Library's scorecard reads them): the declared value and validator (a config reference keeps Node-RED's
 * own check; a typedInput's `<name>Type` has the first type it offers); `extra` adds what is not about the value
 * (the account check). An undeclared name throws: the HTML cannot have a field the table does not declare.
 */
function field(type: string): (name: string, extra?: Spec) => Spec {
  const table = FIELDS[type];
  if (table === undefined) throw new Error(`no field table for ${type}`);
  return (name, extra = {}) => {
    const f = table[name];
    if (f === undefined) {
      const base = /^(.+)Type$/.exec(name)?.[1];
      const typed = base === undefined ? undefined : table[base];
      if (typed?.kind !== 'typed') throw new Error(`${type} declares no field ${name}`);
      return { value: (typed.types ?? ['str'])[0], ...extra };
    }
    // An object (the parameter rows) is every new node's own.
    const spec: Spec = { value: typeof f.value === 'object' ? JSON.parse(JSON.stringify(f.value)) : f.value };
    if (f.kind === 'config') {
      spec.type = f.configType;
      spec.required = f.blank === 'required';
    } else if (f.kind !== 'internal') spec.validate = validator(type, name);
    return { ...spec, ...extra };
  };
}

/**
 * What a blank field shows: its default, else what blank means (when the dialog has no placeholder of its own),
 * and what 0 means where it means something (a budget cap of 0 lets only critical messages through).
 */
function placeholder(field: Field): string | undefined {
  if (field.blank === 'required') return undefined;
  let text: string | undefined;
  if (field.blank === 'default') {
    const v = field.default ?? field.value;
    text = v === '' || v === undefined || typeof v === 'boolean' ? undefined : String(v);
  } else text = blankText(field, t);
  if (
    text !== undefined &&
    field.zero !== undefined &&
    field.blank !== 'default' &&
    field.zero !== field.blank
  )
    text += `; 0: ${t(`${MODULE}/smsgw-config:smsgw-config.fields.zero.${field.zero}`)}`;
  return text;
}

/**
 * Called first in every dialog (smsgwEditor.defaults): the node's fields are read from the dialog from now on,
 * blank fields show what blank means, and a `${NAME}` says it is resolved at deploy.
 */
function prepare(node: EditorNode): void {
  if (isConfig(node)) editing.config = node;
  else editing.node = node;
  const prefix = prefixOf(node);
  for (const [name, field] of Object.entries(FIELDS[node.type] ?? {})) {
    if (field.kind === 'internal' || field.kind === 'config') continue;
    const input = $(prefix + name);
    if (input.length === 0 || input.is('select') || input.is('[type=checkbox]')) continue;
    const text = placeholder(field);
    if (text !== undefined && (field.blank === 'default' || !input.attr('placeholder')))
      input.attr('placeholder', text);
    const envTitle = (): void => {
      const ref = envReference(input.val());
      if (ref !== undefined) {
        input.attr('title', t(`${MODULE}/smsgw-config:smsgw-config.fields.envTitle`, { name: ref }));
        input.data('smsgw-env-title', true);
      } else if (input.data('smsgw-env-title') === true) {
        input.attr('title', null);
        input.data('smsgw-env-title', false);
      }
    };
    input.on('change keyup', envTitle);
    envTitle();
  }
}

/** The typedInput types a field offers (its first is the default). */
function types(type: string, name: string): readonly string[] {
  return FIELDS[type]?.[name]?.types ?? ['str'];
}

export interface EditorFields {
  field: typeof field;
  prepare: typeof prepare;
  types: typeof types;
  /** The tables themselves (read-only), for tests and the dialogs. */
  tables: typeof FIELDS;
}

export const editorFields = (): EditorFields => ({ field, prepare, types, tables: FIELDS });
