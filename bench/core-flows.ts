/**
 * What a Node-RED user builds without this package, from core nodes only: the SendSMS flow (template, http request,
 * xml, change) and the delivery-report flow (template, http request, xml, function: one msg per report). The
 * anchor benchmark runs them beside our nodes; the regression check uses them as its reference workload.
 */
import type { FlowNode } from './embedded';
import { catalogue } from './pkg';
import { PASSWORD, USER } from './lib';
import { RECIPIENT } from './fixtures';

const { DEFAULT_NAMESPACES, DEFAULT_PATHS } = catalogue;
const NS = DEFAULT_NAMESPACES.gateway;

const ENVELOPE_HEAD =
  '<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" ' +
  'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><soap:Body>';
const ENVELOPE_TAIL = '</soap:Body></soap:Envelope>';

/** The http request node as a user sets it up for one SOAP 1.1 operation: POST, keep-alive, two headers. */
const httpNode = (id: string, url: string, operation: string, wires: string): FlowNode => ({
  id,
  type: 'http request',
  method: 'POST',
  ret: 'txt',
  paytoqs: 'ignore',
  url,
  persist: true,
  senderr: false,
  headers: [
    { keyType: 'other', keyValue: 'Content-Type', valueType: 'other', valueValue: 'text/xml; charset=utf-8' },
    { keyType: 'other', keyValue: 'SOAPAction', valueType: 'other', valueValue: `"${NS}${operation}"` },
  ],
  wires: [[wires]],
});

const templateNode = (id: string, template: string, wires: string): FlowNode => ({
  id,
  type: 'template',
  field: 'payload',
  fieldType: 'msg',
  format: 'handlebars',
  syntax: 'mustache',
  output: 'str',
  template,
  wires: [[wires]],
});

const xmlNode = (id: string, wires: string): FlowNode => ({
  id,
  type: 'xml',
  property: 'payload',
  attr: '',
  chr: '',
  wires: [[wires]],
});

/** The SendSMS flow of core nodes: msg.payload is the text, msg.topic the caption (as our node reads them). */
export function coreSendFlow(url: string, out: string): FlowNode[] {
  const envelope =
    ENVELOPE_HEAD +
    `<SendSMS xmlns="${NS}"><User>${USER}</User><Password>${PASSWORD}</Password><Caption>{{topic}}</Caption>` +
    `<Sender>Bench</Sender><Recipient><string>${RECIPIENT}</string></Recipient><SMSText>{{payload}}</SMSText>` +
    `<SmsTyp>Standard</SmsTyp><SendDate>0001-01-01T00:00:00</SendDate></SendSMS>` +
    ENVELOPE_TAIL;
  return [
    templateNode('core-tpl', envelope, 'core-http'),
    httpNode('core-http', url + DEFAULT_PATHS.send, 'SendSMS', 'core-xml'),
    xmlNode('core-xml', 'core-pick'),
    {
      id: 'core-pick',
      type: 'change',
      rules: [
        {
          t: 'set',
          p: 'payload',
          pt: 'msg',
          to: 'payload["soap:Envelope"]["soap:Body"][0].SendSMSResponse[0].SendSMSResult[0].Value[0].JobId[0]',
          tot: 'msg',
        },
      ],
      wires: [[out]],
    },
  ];
}

/** What a user writes in the function node to get one msg per report, values typed as our node gives them. */
const DLR_FUNCTION = `
const result = msg.payload['soap:Envelope']['soap:Body'][0].QueryReceivedDLRResponse[0].QueryReceivedDLRResult[0];
if (result.StatusCode[0] !== 'Ok') { node.error('QueryReceivedDLR: ' + result.StatusCode[0], msg); return null; }
const list = (result.Value[0] && result.Value[0].SMSReport) || [];
const date = (s) => new Date(s.startsWith('0001-01-01') ? NaN : s);
return [list.map((r) => ({
  topic: r.JobId[0],
  payload: {
    Id: Number(r.Id[0]), Recipient: r.Recipient[0], JobId: Number(r.JobId[0]), Status: r.Status[0],
    Date: date(r.Date[0]), MsgCode: Number(r.MsgCode[0]), MsgText: r.MsgText[0], DoneDate: date(r.DoneDate[0]),
    DoneDateTimeZoneOffset: Number(r.DoneDateTimeZoneOffset[0]), Sequence: Number(r.Sequence[0]),
    Caption: r.Caption[0], CreateDate: date(r.CreateDate[0]),
  },
}))];`;

export function coreDlrFlow(url: string, out: string, records: number): FlowNode[] {
  const envelope =
    ENVELOPE_HEAD +
    `<QueryReceivedDLR xmlns="${NS}"><User>${USER}</User><Password>${PASSWORD}</Password>` +
    `<StartDate>{{payload}}</StartDate><Limit>${records}</Limit></QueryReceivedDLR>` +
    ENVELOPE_TAIL;
  return [
    templateNode('dcore-tpl', envelope, 'dcore-http'),
    httpNode('dcore-http', url + DEFAULT_PATHS.information, 'QueryReceivedDLR', 'dcore-xml'),
    xmlNode('dcore-xml', 'dcore-fn'),
    { id: 'dcore-fn', type: 'function', func: DLR_FUNCTION, outputs: 1, wires: [[out]] },
  ];
}
