/** The nodes that ask the gateway: balance, query jobs, customer, any operation. */
import type { FieldTable } from './rule';
import { COMMON_TYPES, GATEWAY, NAME, OUTPUT, OUTPUTS, PARAMS, operation } from './shared';

export const BALANCE_FIELDS: FieldTable = {
  name: NAME,
  gateway: GATEWAY,
  output: OUTPUT,
  operation: operation(['auto', 'QueryAccountBalance', 'QueryBalance2'], 'auto'),
  threshold: {
    kind: 'typed',
    label: 'smsgw-balance.label.threshold',
    value: '',
    types: ['num', ...COMMON_TYPES],
    of: 'number',
    blank: 'none',
  },
  outputs: OUTPUTS,
};

export const QUERY_JOBS_FIELDS: FieldTable = {
  name: NAME,
  gateway: GATEWAY,
  output: OUTPUT,
  operation: operation(
    [
      'QueryJobs',
      'QueryJobInfoByJobCaption',
      'QueryHLRJobsByJobID',
      'QueryReceivedDLRByJobID',
      'QueryReceivedDLR',
      'QueryReceivedSMSByJobCaption',
      'GetRecivedSMS2',
      'RecivedSMS2',
      'GetJobs1',
      'GetGetJobsWithStatusResult',
    ],
    'QueryJobs',
  ),
  params: PARAMS,
};

export const CUSTOMER_FIELDS: FieldTable = {
  name: NAME,
  gateway: GATEWAY,
  output: OUTPUT,
  operation: operation(
    ['GetCustomerList', 'GetCustomer', 'GetCustomerWithAuthUser', 'CreateCustomer'],
    'GetCustomerList',
  ),
  params: PARAMS,
};

const NAMED = { field: 'auth', is: ['named'], words: 'namedCredentials' } as const;

export const CALL_FIELDS: FieldTable = {
  name: NAME,
  gateway: GATEWAY,
  service: {
    kind: 'choice',
    label: 'smsgw-call.label.service',
    value: 'information',
    options: ['information', 'send', 'customer', 'legacy', 'path'],
    blank: 'default',
  },
  path: {
    kind: 'text',
    label: 'smsgw-call.label.path',
    value: '',
    format: 'callPath',
    blank: 'required',
    when: { field: 'service', is: ['path'], words: 'path' },
  },
  operation: {
    kind: 'text',
    label: 'smsgw-config.common.operation',
    value: '',
    format: 'callName',
    blank: 'required',
  },
  auth: {
    kind: 'choice',
    label: 'smsgw-call.label.credentials',
    value: 'auto',
    options: ['auto', 'named', 'none'],
    blank: 'default',
  },
  userParam: {
    kind: 'text',
    label: 'smsgw-call.label.userParam',
    value: '',
    format: 'callName',
    when: NAMED,
  },
  passwordParam: {
    kind: 'text',
    label: 'smsgw-call.label.passwordParam',
    value: '',
    format: 'callName',
    when: NAMED,
  },
  typed: { kind: 'flag', label: 'smsgw-call.label.typed', value: false, blank: 'default' },
  lists: { kind: 'text', label: 'smsgw-call.label.lists', value: '', blank: 'none' },
  namespace: { kind: 'text', label: 'smsgw-call.label.namespace', value: '', blank: 'discover' },
  soapAction: { kind: 'text', label: 'smsgw-call.label.soapAction', value: '', blank: 'auto' },
  output: OUTPUT,
};
