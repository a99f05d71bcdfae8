/** The polling triggers (inbound SMS, delivery reports, HLR results) and the budget node. */
import type { FieldTable } from './rule';
import { GATEWAY, INPUTS, INTERVAL, NAME, store } from './shared';

export const INBOUND_FIELDS: FieldTable = {
  name: NAME,
  gateway: GATEWAY,
  interval: INTERVAL,
  inputs: INPUTS,
  store: store('smsgw-inbound'),
  dropReports: { kind: 'flag', label: 'smsgw-inbound.label.dropReports', value: false, blank: 'default' },
  // Replies an ask node took (they answered one of its questions) are left out unless this is ticked.
  alsoReplies: { kind: 'flag', label: 'smsgw-inbound.label.alsoReplies', value: false, blank: 'default' },
  // Saved by earlier versions (false = drop flagged records); read only while dropReports is not set.
  includeReports: { kind: 'internal', label: 'smsgw-inbound.label.dropReports', value: undefined },
};

export const DLR_FIELDS: FieldTable = {
  name: NAME,
  gateway: GATEWAY,
  interval: INTERVAL,
  inputs: INPUTS,
  store: store('smsgw-dlr'),
  finalOnly: { kind: 'flag', label: 'smsgw-dlr.label.finalOnly', value: false, blank: 'default' },
  finalStates: {
    kind: 'text',
    label: 'smsgw-dlr.label.finalStates',
    value: 'DELIVERED,DELIVRD,UNDELIV,UNDELIVERABLE,EXPIRED,REJECTED,REJECTD,DELETED,FAILED',
    blank: 'default',
  },
  pendingStates: {
    kind: 'text',
    label: 'smsgw-dlr.label.pendingStates',
    value: 'ACCEPTED,ACCEPTD,ENROUTE,BUFFERED,SENT,SUBMITTED,PENDING,QUEUED,SCHEDULED',
    blank: 'default',
  },
  // Minutes back a node without a saved cursor starts from (a year at most).
  lookback: {
    kind: 'number',
    label: 'smsgw-dlr.label.lookback',
    value: 60,
    min: 0,
    max: 527_040,
    unit: 'minutes',
    blank: 'default',
  },
};

export const HLR_RESULTS_FIELDS: FieldTable = {
  name: NAME,
  gateway: GATEWAY,
  interval: INTERVAL,
  inputs: INPUTS,
  store: store('smsgw-hlr-results'),
  limit: {
    kind: 'number',
    label: 'smsgw-hlr-results.label.limit',
    value: 0,
    whole: true,
    min: 0,
    max: 2_147_483_647,
    unit: 'results',
    blank: 'default',
    zero: 'all',
  },
};

export const BUDGET_FIELDS: FieldTable = { name: NAME, gateway: GATEWAY };
