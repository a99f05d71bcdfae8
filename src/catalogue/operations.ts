import { t } from './refs';
import type {
  LegacyResultKind,
  MenuNode,
  OperationDef,
  ParamDef,
  ServiceName,
  StatusCheck,
  TypeRef,
} from './types';

const p = (name: string, type: TypeRef, extra: Partial<ParamDef> = {}): ParamDef => ({
  name,
  type,
  ...extra,
});
const str = (...names: string[]): ParamDef[] => names.map((n) => p(n, t.string));
const optStr = (...names: string[]): ParamDef[] => names.map((n) => p(n, t.string, { optional: true }));
const auth: ParamDef[] = [
  p('User', t.string, { credential: 'user' }),
  p('Password', t.string, { credential: 'password' }),
];
const optAuth: ParamDef[] = auth.map((a) => ({ ...a, optional: true }));

const envelopeOf = (bare: string) => ({ type: t.complex(bare), bare });
const CREATE_OK: StatusCheck = { path: ['Status'], ok: ['Ok'], queued: ['JobIsQueuedInsufficientCredits'] };

function typed(
  service: Exclude<ServiceName, 'legacy'>,
  name: string,
  params: ParamDef[],
  bare: string,
  doc: string,
  extra: Partial<OperationDef> = {},
): OperationDef {
  return { service, name, style: 'document', params, result: envelopeOf(bare), doc, ...extra };
}

function legacy(
  name: string,
  style: 'document' | 'rpc',
  params: ParamDef[],
  kind: LegacyResultKind,
  doc: string,
  node?: MenuNode,
  extra: Partial<OperationDef> = {},
): OperationDef {
  return {
    service: 'legacy',
    name,
    style,
    params,
    result: { type: t.string, bare: 'string', legacy: kind },
    sends: kind === 'send',
    costs: kind === 'send',
    doc,
    ...(node ? { node } : {}),
    ...extra,
  };
}

/**
 * The operations of both services, parameters in wire order. Adding one here (and its result type in schema.ts
 * if it has a new one, and its business logic in the emulator) is all it takes: CONTRIBUTING.md.
 */
export const OPERATIONS: readonly OperationDef[] = [
  // ---- /gateway/Information.asmx
  typed(
    'information',
    'QueryJobs',
    [...auth, p('StartDate', t.dateTime), p('EndDate', t.dateTime)],
    'SOAPResponseOfListOfdbSMSJob',
    'All jobs submitted in a period.',
    { node: 'smsgw-query-jobs' },
  ),
  typed(
    'information',
    'QueryJobInfoByJobCaption',
    [
      ...auth,
      p('Caption', t.string, { doc: 'filter on the job caption' }),
      p('StartDate', t.dateTime, { optional: true, doc: 'default: 7 days back' }),
    ],
    'SOAPResponseOfSMSJobInfo',
    'Job, reports, log and replies of the job with this caption.',
    { statusCheck: { path: ['Status'], ok: ['Ok'] }, node: 'smsgw-query-jobs' },
  ),
  typed(
    'information',
    'QueryNewHLRJobs',
    [...auth, p('Limit', t.int, { optional: true, doc: '0 = all' })],
    'SOAPResponseOfHLRJobList',
    'HLR results not yet collected.',
    { collects: true },
  ),
  typed(
    'information',
    'QueryHLRJobsByJobID',
    [...auth, p('JobID', t.int)],
    'SOAPResponseOfHLRJobList',
    'HLR results of one job.',
    { node: 'smsgw-query-jobs' },
  ),
  typed(
    'information',
    'QueryReceivedDLRByJobID',
    [...auth, p('JobIdList', t.string, { doc: 'comma-separated job ids; jobs with one recipient only' })],
    'SOAPResponseOfDeliveryReportingList',
    'Delivery reports of single-recipient jobs.',
    { node: 'smsgw-query-jobs' },
  ),
  typed(
    'information',
    'QueryReceivedDLR',
    [...auth, p('StartDate', t.dateTime), p('Limit', t.int, { doc: 'at most 5000', max: 5000 })],
    'SOAPResponseOfListOfSMSReport',
    'Delivery receipts since a date.',
    { node: 'smsgw-query-jobs' },
  ),
  typed(
    'information',
    'QueryReceivedSMSByJobCaption',
    [...auth, p('Caption', t.string), p('StartDate', t.dateTime)],
    'SOAPResponseOfListOfdbReceivedSMS',
    'Replies and messages to a rented number since a date.',
    { node: 'smsgw-query-jobs' },
  ),
  typed(
    'information',
    'QueryReceivedNewSMS',
    [...auth],
    'SOAPResponseOfListOfdbReceivedSMS',
    'Received messages not yet collected.',
    { collects: true },
  ),
  typed(
    'information',
    'QueryAccountBalance',
    [...auth],
    'SOAPResponseOfDouble',
    'Account balance in credits.',
    { node: 'smsgw-balance' },
  ),

  // ---- /gateway/Send.asmx
  typed(
    'send',
    'SendSMS',
    [
      ...auth,
      ...str('Caption', 'Sender'),
      p('Recipient', t.stringList),
      p('SMSText', t.string),
      p('SmsTyp', t.enum('SmsType')),
      p('SendDate', t.dateTime),
      p('JobPriority', t.int, { optional: true, doc: 'must be enabled for the account' }),
    ],
    'SOAPResponseOfCreateJobInfo',
    'Send a text to one or more recipients.',
    { sends: true, costs: true, statusCheck: CREATE_OK, node: 'smsgw-send-sms' },
  ),
  typed(
    'send',
    'SendSimpleSMS',
    [
      ...auth,
      ...str('Caption', 'Sender', 'Recipient', 'SMSText'),
      p('SmsTyp', t.enum('SmsType')),
      p('SendDate', t.string),
    ],
    'SOAPResponseOfCreateJobInfo',
    'Send a text to one recipient.',
    { sends: true, costs: true, statusCheck: CREATE_OK, node: 'smsgw-send-sms' },
  ),
  {
    service: 'send',
    name: 'SendMobileOrFixlineSMS',
    style: 'document',
    params: [
      ...auth,
      ...str('Caption', 'Sender', 'Recipient', 'SMSText', 'SendDate'),
      p('MobileSMSType', t.enum('SmsType'), { optional: true, allowed: ['HighQuality', 'HighQualityLong'] }),
    ],
    result: { type: t.listOf('SOAPResponseOfCreateJobInfo'), bare: 'ArrayOfSOAPResponseOfCreateJobInfo' },
    sends: true,
    costs: true,
    statusCheck: CREATE_OK,
    doc: 'Mobile numbers as HighQuality SMS, other numbers as fixed-line voice SMS.',
    node: 'smsgw-send-sms',
  },
  typed(
    'send',
    'SendHLR',
    [...auth, ...str('Caption', 'Recipient')],
    'SOAPResponseOfCreateJobInfo',
    'Start an HLR lookup.',
    { sends: true, costs: true, lookup: true, statusCheck: CREATE_OK },
  ),
  typed(
    'send',
    'SendUDH',
    [...auth, ...str('Caption', 'Recipient', 'Sender', 'Data', 'SendDate')],
    'SOAPResponseOfCreateBinJobInfo',
    'Send a binary message with a user data header.',
    { sends: true, costs: true, statusCheck: { path: ['ParseStatus'], ok: ['Ok'] } },
  ),

  // ---- customer operations (path configurable, default /gateway/Customer.asmx)
  typed(
    'customer',
    'GetCustomerList',
    [...optAuth],
    'SOAPResponseOfCustomerList',
    'Customers of the account.',
    { node: 'smsgw-customer' },
  ),
  typed(
    'customer',
    'GetCustomer',
    [...optAuth, p('CustomerId', t.int)],
    'SOAPResponseOfCustomer',
    'One customer.',
    { node: 'smsgw-customer' },
  ),
  typed(
    'customer',
    'GetCustomerWithAuthUser',
    [...optAuth, ...optStr('SerialOrEmail')],
    'SOAPResponseOfCustomer',
    'A customer with its login user.',
    { node: 'smsgw-customer' },
  ),
  typed(
    'customer',
    'CreateCustomer',
    [
      ...optAuth,
      ...optStr(
        'CompanyName',
        'CompanyName2',
        'ContactPerson',
        'Street',
        'Postcode',
        'Location',
        'Mobil',
        'Tel',
        'Fax',
        'Web',
        'SMSCPassword',
        'SMSCSerial',
        'EMail',
        'Comment',
      ),
    ],
    'SOAPResponseOfCreateCustomerInfo',
    'Create a customer.',
    { statusCheck: { path: ['Status'], ok: ['Ok'] }, node: 'smsgw-customer' },
  ),

  // ---- /soap/send.asmx (older string-result service)
  legacy(
    'SendText',
    'rpc',
    [...auth, ...str('Caption', 'Sender', 'Recipient', 'SMSText', 'SmsTyp', 'SendDate')],
    'send',
    'Send a text (all parameters strings).',
    'smsgw-legacy-send-text',
  ),
  legacy(
    'SendText2',
    'document',
    [...auth, ...str('Caption', 'Sender', 'Recipient', 'SMSText', 'SmsTyp', 'SendDate')],
    'send',
    'Send a text (document style).',
    'smsgw-legacy-send-text',
  ),
  legacy(
    'SendSMS',
    'rpc',
    [
      ...auth,
      ...str('Caption', 'Sender'),
      p('Recipient', t.stringList),
      p('SMSText', t.string),
      p('SmsTyp', t.int),
      p('SendDate', t.dateTime),
    ],
    'send',
    'Send a text to a list of recipients.',
    'smsgw-legacy-send-text',
  ),
  legacy(
    'SendSMS2',
    'document',
    [
      ...auth,
      ...str('Caption', 'Sender'),
      p('Recipient', t.stringList),
      p('SMSText', t.string),
      p('SmsTyp', t.int),
      p('SendDate', t.dateTime),
    ],
    'send',
    'Send a text to a list of recipients (document style).',
    'smsgw-legacy-send-text',
  ),
  legacy(
    'SendSimpleSMS',
    'rpc',
    [...auth, ...str('Recipient', 'SMSText')],
    'send',
    'The simplest send.',
    'smsgw-legacy-send-text',
  ),
  legacy(
    'SMSCR',
    'rpc',
    [
      p('serial', t.string, { credential: 'user' }),
      p('password', t.string, { credential: 'password' }),
      ...str('caption', 'Msg', 'Sender'),
      p('bRecipient', t.base64Binary, { doc: 'recipients as bytes' }),
      p('SendDate', t.dateTime),
      p('SmsTyp', t.int),
    ],
    'send',
    'Transfer function: serial and password replace User and Password.',
    'smsgw-legacy-send-text',
  ),
  legacy(
    'SendBinURL',
    'document',
    [
      ...auth,
      p('Recipient', t.string),
      p('MsgType', t.int),
      p('binTyp', t.int),
      p('URL', t.string),
      p('sendDate', t.dateTime),
    ],
    'send',
    'Binary message from a file at a URL.',
    'smsgw-legacy-send-text',
  ),
  legacy(
    'SendBinData',
    'document',
    [
      ...auth,
      ...str('Recipient', 'strMsg'),
      p('MsgType', t.int),
      p('binTyp', t.int),
      p('Data', t.base64Binary),
      p('sendDate', t.dateTime),
    ],
    'send',
    'Binary message from the bytes of a file.',
    'smsgw-legacy-send-text',
  ),
  legacy(
    'SendBinData2',
    'document',
    [
      ...auth,
      ...str('Recipient', 'strMsg'),
      p('MsgType', t.int),
      p('binTyp', t.int),
      p('Data', t.string),
      p('sendDate', t.string),
    ],
    'send',
    'Binary message from a base64-encoded file.',
    'smsgw-legacy-send-text',
  ),
  legacy(
    'GetRecivedSMS2',
    'rpc',
    [...auth, p('SearchDate', t.string)],
    'receivedSms2',
    'Received messages since a date.',
    'smsgw-query-jobs',
  ),
  legacy(
    'RecivedSMS2',
    'rpc',
    [...auth, p('strLastDate', t.string)],
    'recivedSms2',
    'All messages since a point in time.',
    'smsgw-query-jobs',
  ),
  legacy('GetNewRecivedSMS2', 'rpc', [...auth], 'newReceivedSms2', 'Messages not yet collected.', undefined, {
    collects: true,
  }),
  legacy('QueryBalance2', 'rpc', [...auth], 'balance', 'Balance as a string.', 'smsgw-balance'),
  legacy(
    'GetJobs1',
    'document',
    [...auth, ...str('StartDate', 'EndDate', 'Trennzeichen', 'JobId')],
    'jobs',
    'Submitted jobs in a period.',
    'smsgw-query-jobs',
  ),
  legacy(
    'GetGetJobsWithStatusResult',
    'document',
    [...auth, ...str('StartDate', 'EndDate', 'Trennzeichen', 'JobId')],
    'jobs',
    'Submitted jobs in a period (same result as GetJobs1).',
    'smsgw-query-jobs',
  ),
];
