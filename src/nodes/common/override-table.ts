/**
 * Every node type's msg overrides, in one place (overrides.ts says what an entry is). The nodes read them through
 * this table (`overridesOf`), `npm run generate` writes the override lists of the node help (en-US and de, between
 * `<!-- generated:overrides -->` markers; the words of each entry come from the node's message catalogue,
 * `<type>.overrides.<prop>`, or the shared one, `smsgw-config.overrides.<prop>`) and the table of docs/nodes.md,
 * and test/scripts/generate.test.ts fails when one of them is stale. A node type without overrides has an empty
 * table, and its help says why.
 */
import { GatewayError } from '../../errors';
import { priorityOf } from '../send/send-path';
import { msgValue, type ValueSource } from './fields';
import { selectOperation } from './operations';
import { MsgOverrides, isRecord, override, type Override, type OverrideTable } from './overrides';
import { toDate, toRecipients, toText } from './props';
import type { Node, NodeAPI } from 'node-red';

const typed = (name: string) => ({ name, kind: 'typed' }) as const;
const plain = (name: string) => ({ name, kind: 'plain' }) as const;

/**
 * An override judged by the declared rule of the field it replaces (src/nodes/fields; refused in its words,
 * naming msg.<prop>), then converted to what the node works with.
 */
function ruled<T>(
  nodeType: string,
  o: Omit<Override<T>, 'check' | 'rule'>,
  convert: (v: unknown) => T = (v) => v as T,
): Override<T> {
  const rule = o.field?.name ?? o.prop;
  return override({
    ...o,
    rule,
    check: (v: unknown, source?: ValueSource): T => convert(msgValue(nodeType, rule, v, source)),
  });
}

const text = (nodeType: string, prop: string): Override<string | undefined> =>
  ruled(nodeType, { prop, field: typed(prop), type: 'string' }, toText);

/** Recipients: one number, a comma/semicolon/newline separated list, or an array; msg.recipients works too. */
const recipient = (nodeType: string): Override<string[]> =>
  ruled(
    nodeType,
    { prop: 'recipient', alias: 'recipients', field: typed('recipient'), type: 'string | array' },
    toRecipients,
  );

/** A checkbox or number of the dialog, replaced for one msg. */
const setting = <T>(nodeType: string, prop: string, type: string): Override<T> =>
  ruled<T>(nodeType, { prop, field: plain(prop), type });

/** "critical": the message may use the spending guard's reserve (send/send-path.ts). Every sending node. */
const PRIORITY = override({ prop: 'priority', type: 'string', check: priorityOf });

/**
 * `{ cancel: true }` with msg.topic: removes the messages the quiet hours hold in the outbox that were sent with
 * that topic, instead of sending this msg. Anything but an object, or `cancel` other than true or false, is
 * refused: a flow that meant to cancel must not send. An object without `cancel` is no request.
 */
export const OUTBOX_CANCEL = override({
  prop: 'outbox',
  type: 'object',
  check: (v): boolean => {
    if (isRecord(v) && (v.cancel === undefined || v.cancel === false)) return false;
    if (isRecord(v) && v.cancel === true) return true;
    throw new GatewayError('VALIDATION', 'msg.outbox must be { cancel: true } (with msg.topic)');
  },
});

/** The operation among those the node's menu offers (its name or "service/Name"). */
const operation = (nodeType: string): Override<ReturnType<typeof selectOperation>> =>
  override({
    prop: 'operation',
    field: plain('operation'),
    type: 'string',
    check: (v) => selectOperation(nodeType, '', v),
  });

/** msg.params.<Name>: single parameters of the operation by their wire name (an object; anything else: none). */
const PARAMS = override({
  prop: 'params',
  field: plain('params'),
  type: 'object',
  check: (v): Readonly<Record<string, unknown>> => (isRecord(v) ? v : {}),
});

/** The any-operation node's msg.service: a service (its Service field's rule) or a path (its Path field's rule). */
const callTarget = (v: unknown, source?: ValueSource): string =>
  msgValue(
    'smsgw-call',
    typeof v === 'string' && v.trim().startsWith('/') ? 'path' : 'service',
    v,
    source,
  ) as string;

/** msg.heartbeat: `{ forget: true }` stops watching the msg's source (no "back" follows). */
const HEARTBEAT = override({
  prop: 'heartbeat',
  type: 'object',
  check: (v): { forget: boolean } => {
    if (isRecord(v) && (v.forget === undefined || v.forget === null || typeof v.forget === 'boolean'))
      return { forget: v.forget === true };
    throw new GatewayError('VALIDATION', 'msg.heartbeat must be an object such as { forget: true }');
  },
});

export const OVERRIDES = {
  'smsgw-send-sms': {
    recipient: recipient('smsgw-send-sms'),
    sender: text('smsgw-send-sms', 'sender'),
    caption: text('smsgw-send-sms', 'caption'),
    smsType: text('smsgw-send-sms', 'smsType'),
    // Checked here for every operation; passed on as given (SendSimpleSMS takes the date as text).
    sendDate: ruled('smsgw-send-sms', {
      prop: 'sendDate',
      field: typed('sendDate'),
      type: 'Date | string | number',
    }),
    // Converted with the operation's other parameters (the catalogue says it is an int).
    jobPriority: ruled('smsgw-send-sms', {
      prop: 'jobPriority',
      field: typed('jobPriority'),
      type: 'number',
    }),
    operation: operation('smsgw-send-sms'),
    track: setting<boolean>('smsgw-send-sms', 'track', 'boolean'),
    trackTimeout: setting<number>('smsgw-send-sms', 'trackTimeout', 'number'),
    priority: PRIORITY,
    outbox: OUTBOX_CANCEL,
  },
  'smsgw-send-hlr': {
    recipient: recipient('smsgw-send-hlr'),
    caption: text('smsgw-send-hlr', 'caption'),
    wait: setting<boolean>('smsgw-send-hlr', 'wait', 'boolean'),
    waitTimeout: setting<number>('smsgw-send-hlr', 'waitTimeout', 'number'),
    priority: PRIORITY,
  },
  'smsgw-send-udh': {
    recipient: recipient('smsgw-send-udh'),
    sender: text('smsgw-send-udh', 'sender'),
    caption: text('smsgw-send-udh', 'caption'),
    sendDate: ruled(
      'smsgw-send-udh',
      { prop: 'sendDate', field: typed('sendDate'), type: 'Date | string | number' },
      (v) => toDate(v, 'sendDate'),
    ),
    dataFormat: setting<'auto' | 'hex' | 'base64'>('smsgw-send-udh', 'dataFormat', 'string'),
    priority: PRIORITY,
    outbox: OUTBOX_CANCEL,
  },
  'smsgw-legacy-send-text': {
    params: PARAMS,
    operation: operation('smsgw-legacy-send-text'),
    priority: PRIORITY,
    outbox: OUTBOX_CANCEL,
  },
  'smsgw-balance': {
    threshold: ruled<number | undefined>('smsgw-balance', {
      prop: 'threshold',
      field: typed('threshold'),
      type: 'number',
    }),
    operation: override({
      prop: 'operation',
      field: plain('operation'),
      type: 'string',
      check: (v): 'auto' | 'QueryAccountBalance' | 'QueryBalance2' =>
        typeof v === 'string' && v.trim() === 'auto'
          ? 'auto'
          : (selectOperation('smsgw-balance', '', v).name as 'QueryAccountBalance' | 'QueryBalance2'),
    }),
  },
  'smsgw-query-jobs': {
    params: PARAMS,
    operation: operation('smsgw-query-jobs'),
  },
  'smsgw-customer': {
    params: PARAMS,
    operation: operation('smsgw-customer'),
  },
  'smsgw-call': {
    service: override({ prop: 'service', field: plain('service'), type: 'string', check: callTarget }),
    operation: ruled<string>('smsgw-call', { prop: 'operation', field: plain('operation'), type: 'string' }),
    soapHeaders: override({
      prop: 'soapHeaders',
      type: 'object',
      check: (v): Record<string, unknown> => {
        if (!isRecord(v))
          throw new GatewayError('VALIDATION', 'msg.soapHeaders must be an object of header blocks');
        return v;
      },
    }),
  },
  // A msg only asks for a poll now: what is read follows the node's cursor and state, which a per-message
  // setting would skip or repeat (the help says so).
  'smsgw-inbound': {},
  'smsgw-dlr': {},
  'smsgw-hlr-results': {},
  // A msg only asks for the counts: the limits are the gateway configuration's, shared by its send nodes.
  'smsgw-budget': {},
  // The question, the on-call list, caption and sender are typedInputs (msg.payload by default, any msg property);
  // msg.topic and msg.ask name a question, they change no setting.
  'smsgw-ask': { priority: PRIORITY },
  // The source is a typedInput (msg.topic by default); msg.heartbeat says what to do with the msg's source.
  'smsgw-heartbeat': { heartbeat: HEARTBEAT },
  // The numbers are a typedInput (msg.payload by default); msg.optOut says what to do with them.
  'smsgw-optout': {
    optOut: ruled<'add' | 'remove' | 'check'>('smsgw-optout', {
      prop: 'optOut',
      field: plain('action'),
      type: 'string',
    }),
  },
} as const satisfies Readonly<Record<string, OverrideTable>>;

export type OverrideNodeType = keyof typeof OVERRIDES;

/** The overrides of a node type, or undefined for a type without a table (the config node). */
export const overrideTableOf = (nodeType: string): OverrideTable | undefined =>
  (OVERRIDES as Readonly<Record<string, OverrideTable>>)[nodeType];

/** The reader a node of this type uses for its messages. */
export function overridesOf<N extends OverrideNodeType>(
  RED: NodeAPI,
  node: Node,
  nodeType: N,
  def: Readonly<Record<string, unknown>>,
): MsgOverrides<(typeof OVERRIDES)[N]> {
  return new MsgOverrides(OVERRIDES[nodeType], RED, node, def);
}
