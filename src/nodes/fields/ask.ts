/** The ask node's fields. */
import type { FieldTable } from './rule';
import { CAPTION, COMMON_TYPES, GATEWAY, NAME, SENDER } from './shared';

const L = 'smsgw-ask.label';

export const ASK_FIELDS: FieldTable = {
  name: NAME,
  gateway: GATEWAY,
  question: {
    kind: 'typed',
    label: `${L}.question`,
    value: 'payload',
    types: ['msg', 'str', ...COMMON_TYPES.slice(1)],
    of: 'text',
    blank: 'required',
  },
  numbers: {
    kind: 'typed',
    label: `${L}.numbers`,
    value: '',
    types: ['str', 'json', ...COMMON_TYPES],
    of: 'text',
    format: 'recipients',
    blank: 'required',
  },
  // Each step is a timer; below 1 second a step waits 1 second (the triggers poll at most once a second).
  wait: {
    kind: 'number',
    label: `${L}.wait`,
    value: 5,
    min: 0,
    above: true,
    timer: {
      field: 'waitUnit',
      ms: { min: 60_000, s: 1000, h: 3_600_000 },
      units: { min: 'minutes', s: 'seconds', h: 'hours' },
    },
    blank: 'default',
  },
  waitUnit: {
    kind: 'choice',
    label: `${L}.wait`,
    value: 'min',
    options: ['s', 'min', 'h'],
    blank: 'default',
  },
  rounds: { kind: 'number', label: `${L}.rounds`, value: 1, whole: true, min: 1, max: 100, blank: 'default' },
  // Words of letters and digits (the reply grammar, ask/grammar.ts); a new node gets English and German ones. A
  // flow saved with them blank keeps "any reply acknowledges", one saved with its own words keeps those.
  ack: { kind: 'text', label: `${L}.ack`, value: '1, ok, ja', format: 'answerWords', blank: 'anyReply' },
  pass: { kind: 'text', label: `${L}.pass`, value: '2, busy, besetzt', format: 'passAnswers', blank: 'none' },
  // A flow saved before resolve existed has none: no reply resolves there (msg.ask.resolve still does).
  resolve: {
    kind: 'text',
    label: `${L}.resolve`,
    value: '3, done, erledigt',
    format: 'resolveAnswers',
    blank: 'none',
  },
  tell: {
    kind: 'choice',
    label: `${L}.tell`,
    value: 'none',
    options: ['none', 'asked', 'all'],
    blank: 'default',
  },
  tellCancel: { kind: 'flag', label: `${L}.tellCancel`, value: false, blank: 'default' },
  // Answers to a person's reply ("Already taken by", "Which one?"): a flow saved before they existed gets them on.
  tellLate: { kind: 'flag', label: `${L}.tellLate`, value: true, blank: 'default' },
  // The reply limiter: two auto-responders must not text each other until the account is empty. 0: no answers.
  replyLimit: {
    kind: 'number',
    label: `${L}.replyLimit`,
    value: 5,
    whole: true,
    min: 0,
    max: 100,
    blank: 'default',
  },
  replyWindow: {
    kind: 'number',
    label: `${L}.replyWindow`,
    value: 10,
    min: 1,
    max: 1440,
    unit: 'minutes',
    // A window the answers are counted in, not a timer (the engine looks at most a minute ahead).
    blank: 'default',
  },
  // The msg property whose value names the alarm's cause: while its question is open a msg with the same value
  // updates it instead of asking again. A flow saved before it existed has none: every msg asks, as before.
  dedupe: { kind: 'text', label: `${L}.dedupe`, value: 'topic', blank: 'none' },
  // After a question with a dedupe key closed, the same key asks again only this long after (0: at once).
  quiet: {
    kind: 'number',
    label: `${L}.quiet`,
    value: 10,
    min: 0,
    max: 1440,
    unit: 'minutes',
    blank: 'default',
  },
  tellUpdate: { kind: 'flag', label: `${L}.tellUpdate`, value: false, blank: 'default' },
  // Who hears a resolve; when nobody acknowledged, everyone asked (they all hold it).
  tellResolve: {
    kind: 'choice',
    label: `${L}.tellResolve`,
    value: 'asked',
    options: ['asked', 'acknowledger'],
    blank: 'default',
  },
  // How long an acknowledged question stays open for a resolve (kept, its code in use); 0: not after it was answered.
  resolveWithin: {
    kind: 'number',
    label: `${L}.resolveWithin`,
    value: 24,
    min: 0,
    max: 720,
    unit: 'hours',
    blank: 'default',
  },
  critical: { kind: 'flag', label: `${L}.critical`, value: false, blank: 'default' },
  smsType: {
    kind: 'choice',
    label: `${L}.smsType`,
    value: 'Standard',
    options: [
      'Standard',
      'StandardLong',
      'StandardDeliveryNotification',
      'HighQuality',
      'HighQualityLong',
      'Flash',
    ],
    blank: 'default',
  },
  sender: SENDER,
  caption: CAPTION,
  hint: { kind: 'text', label: `${L}.hint`, value: '', blank: 'auto' },
  passedText: { kind: 'text', label: `${L}.passedText`, value: '', blank: 'auto' },
  passedByText: { kind: 'text', label: `${L}.passedByText`, value: '', blank: 'auto' },
  tellText: { kind: 'text', label: `${L}.tellText`, value: '', blank: 'auto' },
  cancelText: { kind: 'text', label: `${L}.cancelText`, value: '', blank: 'auto' },
  resolvedText: { kind: 'text', label: `${L}.resolvedText`, value: '', blank: 'auto' },
  updateText: { kind: 'text', label: `${L}.updateText`, value: '', blank: 'auto' },
  interval: {
    kind: 'number',
    label: `${L}.interval`,
    value: 30,
    min: 1,
    unit: 'seconds',
    timer: 1000,
    blank: 'default',
  },
};
