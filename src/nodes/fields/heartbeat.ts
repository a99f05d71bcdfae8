/** The heartbeat node's fields. */
import type { Field, FieldTable } from './rule';
import { COMMON_TYPES, NAME } from './shared';

const L = 'smsgw-heartbeat.label';

/** Every and Grace share one unit (the select beside Every). */
const UNIT = {
  field: 'unit',
  ms: { min: 60_000, s: 1000, h: 3_600_000 },
  units: { min: 'minutes', s: 'seconds', h: 'hours' },
} as const;

/** The gateway watch's fields are judged only while it is on. */
const WATCHING = { field: 'watch', is: [true, 'true'], words: 'gatewayWatch' } as const;

/** Optional here: a gateway configuration only for coordination through Redis and for the gateway watch. */
const GATEWAY: Field = {
  kind: 'config',
  label: `${L}.gateway`,
  value: '',
  blank: 'none',
  configType: 'smsgw-config',
};

export const HEARTBEAT_FIELDS: FieldTable = {
  name: NAME,
  gateway: GATEWAY,
  source: {
    kind: 'typed',
    label: `${L}.source`,
    value: 'topic',
    types: ['msg', 'str', ...COMMON_TYPES.slice(1)],
    of: 'text',
    blank: 'required',
  },
  // A source is watched with at least a second (the checks run about once a second).
  every: {
    kind: 'number',
    label: `${L}.every`,
    value: 5,
    min: 0,
    above: true,
    timer: UNIT,
    blank: 'default',
  },
  unit: { kind: 'choice', label: `${L}.unit`, value: 'min', options: ['s', 'min', 'h'], blank: 'default' },
  grace: { kind: 'number', label: `${L}.grace`, value: 0, min: 0, timer: UNIT, blank: 'default' },
  sources: { kind: 'text', label: `${L}.sources`, value: '', blank: 'anySource' },
  watch: { kind: 'flag', label: `${L}.watch`, value: false, blank: 'default' },
  failures: {
    kind: 'number',
    label: `${L}.failures`,
    value: 3,
    whole: true,
    min: 1,
    max: 1000,
    blank: 'default',
    when: WATCHING,
  },
  failCodes: {
    kind: 'text',
    label: `${L}.failCodes`,
    value: 'NETWORK, TIMEOUT, HTTP, AUTH',
    format: 'errorCodes',
    blank: 'default',
    when: WATCHING,
  },
  balanceBelow: {
    kind: 'number',
    label: `${L}.balanceBelow`,
    value: '',
    min: 0,
    blank: 'none',
    when: WATCHING,
  },
  balanceEvery: {
    kind: 'number',
    label: `${L}.balanceEvery`,
    value: 60,
    min: 1,
    unit: 'minutes',
    timer: 60_000,
    blank: 'default',
    when: WATCHING,
  },
};
