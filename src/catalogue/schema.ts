import { t } from './refs';
import type { ComplexTypeDef, EnumDef, FieldDef, TypeRef } from './types';

/** Enumerations of both services, spelled exactly as the spec spells them. */
export const ENUMS: Readonly<Record<string, EnumDef>> = Object.fromEntries(
  (
    [
      {
        name: 'LoginStatus',
        values: ['None', 'Ok', 'InvalidUser', 'AccountLocked', 'IPLock', 'DatabaseError'],
      },
      {
        name: 'JobType',
        values: [
          'AbsenderUeberAusland',
          'Flash',
          'SmallLogo',
          'PicSMS',
          'RingTone',
          'Standart',
          'UDH',
          'Bookmark',
          'VCARD1',
          'VCARD2',
          'PICTURE',
          'EMSSOUND',
          'EMSANIMATION',
          'EMSBITMAP',
          'BigLogo',
          'StandartDeliveryNotification',
          'StandartLongSMS',
          'HighQuality',
          'HighQualityLong',
          'MMS',
          'NoSenderAusland',
          'EMAIL',
          'Festnetz',
          'StandartClass0',
          'HLR',
        ],
      },
      {
        name: 'JobStatus',
        values: [
          'None',
          'Offen',
          'InBearbeitung',
          'ZuWenigKontingent',
          'Storno',
          'Fehler',
          'Spam',
          'Erledigt',
        ],
      },
      {
        name: 'BinDataType',
        values: ['None', 'Normal', 'BMP', 'JPG', 'GIF', 'NOL', 'PNG', 'MIDI', 'Rtttl', 'xml'],
      },
      { name: 'SMSJobInfoStatus', values: ['None', 'Ok', 'JobNotFound'] },
      { name: 'SMSLogPriority', values: ['Info', 'Normal', 'Warn', 'Crtitical'] },
      {
        name: 'CreateStatus',
        values: [
          'None',
          'Ok',
          'NoTextFound',
          'NoDataFound',
          'NoUrlFound',
          'NoRecipientFound',
          'SMSTypeError',
          'DuplicateSMSJobFound',
          'ShortIDAsSenderFound',
          'MsgTextBlacklistFound',
          'LoginError',
          'UnknowError',
          'DatabaseError',
          'JobIsQueuedInsufficientCredits',
        ],
      },
      {
        name: 'ParseStatus',
        values: [
          'None',
          'Ok',
          'MMSXMLParseError',
          'MMSSubjectORDataNotFound',
          'MMSPictureNOTReadable',
          'MMSInvalidData',
        ],
      },
      { name: 'CustomerPayOption', values: ['None', 'DirectDebit', 'BankTransfer', 'PayPal', 'CreditCard'] },
      { name: 'CustomerDeliveryOption', values: ['None', 'Post', 'EMail'] },
      {
        name: 'CustomerStatus',
        values: [
          'None',
          'Ok',
          'SMSCSerialToShort',
          'SMSCSerialAlreadyExists',
          'PasswordToShort',
          'CustomerMisstatement',
        ],
        open: true,
      },
      {
        name: 'SmsType',
        values: [
          'Flash',
          'Standard',
          'StandardDeliveryNotification',
          'StandardLong',
          'HighQuality',
          'HighQualityLong',
          'PSTNFixedLine',
        ],
      },
    ] satisfies EnumDef[]
  ).map((e) => [e.name, e]),
);

const f = (name: string, type: TypeRef): FieldDef => ({ name, type });
const strings = (...names: string[]): FieldDef[] => names.map((n) => f(n, t.string));
const ints = (...names: string[]): FieldDef[] => names.map((n) => f(n, t.int));

/** Complex types in declaration order (the order ASMX serializes fields in). */
const COMPLEX_LIST: ComplexTypeDef[] = [
  {
    name: 'dbSMSJob',
    fields: [
      ...ints('Id', 'CustId'),
      f('Typ', t.enum('JobType')),
      ...strings('Sender', 'Caption', 'Text'),
      f('Status', t.enum('JobStatus')),
      ...ints('SMSTotal', 'SMSTransferd'),
      f('FavoredDate', t.dateTime),
      f('SendDate', t.dateTime),
      f('CreateDate', t.dateTime),
      f('Recipient', t.string),
      f('Amount', t.double),
      f('BinDataTyp', t.enum('BinDataType')),
      f('BinData', t.string),
      f('Priority', t.int),
      f('ChangedDate', t.dateTime),
      ...ints('ChangedId', 'TotalSequences'),
    ],
  },
  {
    name: 'SMSReport',
    fields: [
      f('Id', t.int),
      f('Recipient', t.string),
      f('JobId', t.int),
      f('Status', t.string),
      f('Date', t.dateTime),
      f('MsgCode', t.int),
      f('MsgText', t.string),
      f('DoneDate', t.dateTime),
      ...ints('DoneDateTimeZoneOffset', 'Sequence'),
      f('Caption', t.string),
      f('CreateDate', t.dateTime),
    ],
  },
  {
    name: 'dbSMSLog',
    fields: [
      ...ints('Id', 'CustId', 'JobId'),
      f('Priorety', t.enum('SMSLogPriority')),
      ...strings('Caption', 'Text'),
      f('CreateDate', t.dateTime),
    ],
  },
  {
    name: 'SMSReceived',
    fields: [
      f('JobId', t.int),
      ...strings('Sender', 'Text'),
      f('Date', t.dateTime),
      ...strings('PDU', 'Caption'),
    ],
  },
  {
    name: 'SMSJobInfo',
    fields: [
      f('Job', t.complex('dbSMSJob')),
      f('Report', t.listOf('SMSReport')),
      f('Log', t.listOf('dbSMSLog')),
      f('Received', t.listOf('SMSReceived')),
      f('Status', t.enum('SMSJobInfoStatus')),
    ],
  },
  {
    name: 'dbReceivedSMS',
    fields: [
      ...ints('Id', 'CustId', 'JobId'),
      ...strings('Sender', 'Text'),
      f('Date', t.dateTime),
      f('Info', t.string),
      ...ints('Report', 'Send'),
      f('PDU', t.string),
      f('SmscDateTime', t.dateTime),
      f('SmscDateTimeZoneOffset', t.int),
    ],
  },
  {
    name: 'DeliveryReporting',
    fields: [
      f('JobID', t.int),
      f('IsFinalState', t.boolean),
      ...strings('SmsState', 'Sender'),
      f('SentOn', t.dateTime),
      f('DeliveredOn', t.dateTime),
      ...ints('DeliveredOnTimeZoneOffset', 'CSMSPartNumber'),
      f('Text', t.string),
      f('UnknownSubscriber', t.boolean),
    ],
  },
  {
    name: 'dbHLRJob',
    fields: [
      ...ints('Id', 'JobId', 'Status', 'Ref'),
      ...strings('Number', 'NecNetworkType', 'NecValue', 'NormNetCode', 'GsmError'),
      f('CreateDate', t.dateTime),
      f('ReciveDate', t.dateTime),
    ],
  },
  { name: 'CreateJobInfo', fields: [f('Status', t.enum('CreateStatus')), f('JobId', t.int)] },
  { name: 'CreateBinJobInfo', fields: [f('ParseStatus', t.enum('ParseStatus'))] },
  {
    name: 'CustomerUser',
    fields: [
      ...ints('Id', 'CustId'),
      ...strings('FirstName', 'LastName', 'EMail', 'Password', 'Phone'),
      f('Locked', t.int),
      f('CreateDate', t.dateTime),
      f('ChangedDate', t.dateTime),
    ],
  },
  {
    name: 'Customer',
    fields: [
      ...ints('Id', 'ResId'),
      ...strings(
        'ExtId',
        'CompanyName',
        'CompanyName2',
        'ContactPerson',
        'Street',
        'Postcode',
        'Location',
        'USTID',
        'Country',
        'Tel',
        'Fax',
        'Mobil',
        'EMail',
        'Web',
        'Comment',
        'Bank',
        'BankCode',
        'BankAccount',
        'BankHolder',
      ),
      ...ints('Active', 'PricelistId', 'SendWarn', 'SendWarnType', 'EMailNewsletter'),
      f('CreateDate', t.dateTime),
      ...strings('SMSCSerial', 'Password', 'SenderName', 'BackMail', 'IPLock'),
      f('UseCountryCode', t.boolean),
      f('CountryCode', t.int),
      f('PayOption', t.enum('CustomerPayOption')),
      f('DeliveryOption', t.enum('CustomerDeliveryOption')),
      ...strings('IBAN', 'BIC'),
      f('AuthUser', t.complex('CustomerUser')),
    ],
  },
  {
    name: 'CreateCustomerInfo',
    fields: [f('Status', t.enum('CustomerStatus')), f('ModifiedCustomer', t.complex('Customer'))],
  },
];

/** `SOAPResponseOf<T>`: every typed operation's result. Named as the spec's bare result names them. */
const envelope = (name: string, value: TypeRef): ComplexTypeDef => ({
  name,
  fields: [f('StatusCode', t.enum('LoginStatus')), f('Value', value)],
});

export const ENVELOPES: ComplexTypeDef[] = [
  envelope('SOAPResponseOfListOfdbSMSJob', t.listOf('dbSMSJob')),
  envelope('SOAPResponseOfSMSJobInfo', t.complex('SMSJobInfo')),
  envelope('SOAPResponseOfHLRJobList', t.listOf('dbHLRJob')),
  envelope('SOAPResponseOfDeliveryReportingList', t.listOf('DeliveryReporting')),
  envelope('SOAPResponseOfListOfSMSReport', t.listOf('SMSReport')),
  envelope('SOAPResponseOfListOfdbReceivedSMS', t.listOf('dbReceivedSMS')),
  envelope('SOAPResponseOfDouble', t.double),
  envelope('SOAPResponseOfCreateJobInfo', t.complex('CreateJobInfo')),
  envelope('SOAPResponseOfCreateBinJobInfo', t.complex('CreateBinJobInfo')),
  envelope('SOAPResponseOfCustomerList', t.listOf('Customer')),
  envelope('SOAPResponseOfCustomer', t.complex('Customer')),
  envelope('SOAPResponseOfCreateCustomerInfo', t.complex('CreateCustomerInfo')),
];

export const COMPLEX_TYPES: Readonly<Record<string, ComplexTypeDef>> = Object.fromEntries(
  [...COMPLEX_LIST, ...ENVELOPES].map((c) => [c.name, c]),
);

export function complexType(name: string): ComplexTypeDef {
  const def = COMPLEX_TYPES[name];
  if (!def) throw new Error(`unknown complex type ${name}`);
  return def;
}

export function enumType(name: string): EnumDef {
  const def = ENUMS[name];
  if (!def) throw new Error(`unknown enum ${name}`);
  return def;
}
