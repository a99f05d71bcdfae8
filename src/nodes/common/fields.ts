/**
 * The runtime's side of the field rules (src/nodes/fields): every node judges all its settings at deploy with the
 * checker the editor runs, and takes the converted values from it. A node with a refused setting does nothing else:
 * a red ring "config: <first reason> (+N more)", ONE log line naming every refused field, and every msg fails
 * with CONFIG (a Catch node hears it). A node whose gateway configuration was refused does the same with the
 * configuration's reasons (the configuration logged them). Values from a msg (overrides, typed fields evaluated
 * for a msg) go through the same rules and fail with VALIDATION before anything is sent, counted or queried.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Node, NodeAPI, NodeMessageInFlow } from 'node-red';
import { GatewayError } from '../../errors';
import { fieldsOf } from '../fields';
import {
  judgeNode,
  judgeValue,
  MODULE,
  qualified,
  reasonText,
  type Field,
  type FieldEnv,
  type JudgeContext,
  type Problem,
  type Translate,
} from '../fields/rule';
import { NodeGatewayError } from './errors';
import { failed } from './status';

const WORDS = `${MODULE}/smsgw-config:smsgw-config.fields.`;
/** Longest first reason a red ring shows (the status bar under a node is one short line). */
const STATUS_REASON_MAX = 40;

let translate: Translate | undefined;
let util: NodeAPI['util'] | undefined;

/** The runtime's RED._ and parsers, from the first node (any node's: the keys are fully qualified). */
function use(RED: NodeAPI | undefined): void {
  if (!RED) return;
  translate ??= (key, params) => RED._(key, params);
  util ??= RED.util;
}

/** The en-US words, read from the package's catalogues: for checks made before any node ran (unit tests). */
function catalogueWords(): Translate {
  const locales = path.join(__dirname, '..', '..', '..', 'nodes', 'locales', 'en-US');
  const cache = new Map<string, Record<string, unknown>>();
  return (key, params = {}) => {
    const m = /^[^:]*\/([^/:]+):(.*)$/.exec(key);
    if (!m) return key;
    const [, set, rest] = m;
    let cat = cache.get(set!);
    if (!cat) {
      cat = JSON.parse(readFileSync(path.join(locales, `${set}.json`), 'utf8')) as Record<string, unknown>;
      cache.set(set!, cat);
    }
    const found = rest!
      .split('.')
      .reduce<unknown>((o, k) => (typeof o === 'object' && o !== null ? (o as never)[k] : undefined), cat);
    if (typeof found !== 'string') return key;
    return found.replace(/__(\w+)__/g, (all, p: string) => (p in params ? String(params[p]) : all));
  };
}

const words = (): Translate => (translate ??= catalogueWords());

/**
 * Node-RED's util: the runtime's; before any node ran (a unit test judging settings), the one Node-RED itself
 * loads (@node-red/util, beside this package wherever Node-RED runs it).
 */
function nodeRedUtil(): NodeAPI['util'] {
  if (!util) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      util = (require('@node-red/util') as { util: NodeAPI['util'] }).util;
    } catch {
      throw new Error('the field checker needs Node-RED to parse a property or an expression');
    }
  }
  return util;
}

const ENV: FieldEnv = {
  property(expr) {
    try {
      nodeRedUtil().normalisePropertyExpression(expr);
      return true;
    } catch {
      return false;
    }
  },
  jsonata(expr) {
    try {
      nodeRedUtil().prepareJSONataExpression(expr, {} as Node);
      return true;
    } catch {
      return false;
    }
  },
};

/** A refused setting in words. */
export function problemText(nodeType: string, p: Problem, values: Readonly<Record<string, unknown>>): string {
  const field = fieldsOf(nodeType)[p.field]!;
  return reasonText(field, p.why, words(), { sibling: (n) => values[n] });
}

/** The settings of a node judged: the values it works with, the refused ones in words, one CONFIG error. */
export interface CheckedSettings {
  values: Record<string, unknown>;
  reasons: string[];
  error: GatewayError | undefined;
}

export function checkSettings(nodeType: string, settings: object, RED?: NodeAPI): CheckedSettings {
  use(RED);
  const def = settings as Readonly<Record<string, unknown>>;
  const { values, problems } = judgeNode(fieldsOf(nodeType), def, ENV);
  const reasons = problems.map((p) => problemText(nodeType, p, def));
  const error =
    reasons.length === 0
      ? undefined
      : new GatewayError('CONFIG', words()(`${WORDS}refused`, { list: reasons.join('; ') }), {
          ambiguous: false,
        });
  return { values, reasons, error };
}

/** The settings' values, or the CONFIG error naming every refused one (for code that has no node to show it). */
export function settingsOf(nodeType: string, def: object, RED?: NodeAPI): Record<string, unknown> {
  const checked = checkSettings(nodeType, def, RED);
  if (checked.error) throw checked.error;
  return checked.values;
}

/** What a config node refused, for the nodes using it. */
interface Refusal {
  error: GatewayError;
  reasons: string[];
}
const refusedConfigs = new WeakMap<object, Refusal>();

function statusText(reasons: readonly string[]): string {
  const first = reasons[0] ?? '';
  const reason =
    first.length > STATUS_REASON_MAX ? `${first.slice(0, STATUS_REASON_MAX - 1).trimEnd()}…` : first;
  return reasons.length > 1
    ? words()(`${WORDS}statusMore`, { reason, count: reasons.length - 1 })
    : words()(`${WORDS}status`, { reason });
}

/** The node does nothing but say why: its status, and CONFIG for every msg. */
function refuse(node: Node, refusal: Refusal): void {
  node.status(failed(statusText(refusal.reasons)));
  node.on('input', (_msg: NodeMessageInFlow, _send: unknown, done: (err?: Error) => void) =>
    done(new NodeGatewayError(refusal.error)),
  );
}

/**
 * Judges a node's settings at deploy (and its gateway configuration's verdict): the values to work with, or
 * undefined when the node must not start (it has shown and logged why, and refuses every msg).
 */
export function deployFields(
  RED: NodeAPI,
  node: Node,
  nodeType: string,
  settings: object,
): Record<string, unknown> | undefined {
  const def = settings as Readonly<Record<string, unknown>>;
  const checked = checkSettings(nodeType, def, RED);
  if (checked.error) {
    node.error(checked.error.message);
    const refusal = { error: checked.error, reasons: checked.reasons };
    // The configuration's users read it; a config node has no status of its own to show.
    if (nodeType === 'smsgw-config') refusedConfigs.set(node, refusal);
    else refuse(node, refusal);
    return undefined;
  }
  const gateway =
    typeof def.gateway === 'string' && def.gateway !== '' ? RED.nodes.getNode(def.gateway) : null;
  const configRefusal = gateway ? refusedConfigs.get(gateway) : undefined;
  if (configRefusal) {
    refuse(node, configRefusal);
    return undefined;
  }
  return checked.values;
}

/** The refusal of a config node (deployFields), or undefined. */
export const configRefusal = (config: object): GatewayError | undefined => refusedConfigs.get(config)?.error;

/** Where a msg value came from: a msg property (`msg.<prop>`), or the field evaluated for the msg (its label). */
export interface ValueSource {
  subject?: string;
}

/**
 * A value from a msg judged by a field's rule: the converted value, or a VALIDATION error in the field's words
 * (naming `msg.<prop>` when the value came from the msg). `siblings` are the node's other values (a unit).
 */
export function msgValue(
  nodeType: string,
  name: string,
  value: unknown,
  source?: ValueSource,
  siblings?: Readonly<Record<string, unknown>>,
): unknown {
  const field: Field | undefined = fieldsOf(nodeType)[name];
  if (field === undefined) throw new Error(`${nodeType} declares no field ${name}`);
  // Without siblings (a send node judges six values per msg so) one context serves every call.
  const ctx: JudgeContext =
    siblings === undefined ? MSG_CONTEXT : { sibling: (n) => siblings[n], env: ENV, msg: true };
  const verdict = judgeValue(field, value, ctx);
  if (verdict.ok) return verdict.value;
  throw new GatewayError('VALIDATION', reasonText(field, verdict.why, words(), ctx, source?.subject), {
    ambiguous: false,
  });
}

/** The context of a msg's value judged without siblings (no other field's value is known). */
const MSG_CONTEXT: JudgeContext = { sibling: () => undefined, env: ENV, msg: true };

/** One setting's value (the others left out), or a CONFIG error in its words: for code that reads a few fields. */
export function settingOf(nodeType: string, name: string, settings: object): unknown {
  const field = fieldsOf(nodeType)[name];
  if (field === undefined) throw new Error(`${nodeType} declares no field ${name}`);
  const def = settings as Readonly<Record<string, unknown>>;
  const { values, problems } = judgeNode({ [name]: field }, def, ENV);
  const p = problems[0];
  if (p) throw new GatewayError('CONFIG', problemText(nodeType, p, def), { ambiguous: false });
  return values[name];
}

/** A field's label as the dialog shows it (for errors that name it). */
export const fieldLabel = (nodeType: string, name: string): string =>
  words()(qualified(fieldsOf(nodeType)[name]!.label));
