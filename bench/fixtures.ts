/**
 * What the benchmarks send and start, in one place, so that every benchmark measures the same message:
 * SendSMS and SendText parameters, the prebuilt wire requests, the send-sms node's settings and the
 * emulator in its own process.
 */
import type { Transport } from '../src/client';
import type { FlowNode } from './embedded';
import { catalogue, request } from './pkg';
import { PASSWORD, USER, startChild, type ChildServer } from './lib';

const { DEFAULT_NAMESPACES, DEFAULT_PATHS, findOperation } = catalogue;

export const RECIPIENT = '+4917012345678';
export const TEXT = 'Benchmark message, nothing to see here.';

/** The typed service's SendSMS parameters (without the credentials). */
export const SEND_PARAMS = {
  Caption: 'bench',
  Sender: 'Bench',
  Recipient: [RECIPIENT],
  SMSText: TEXT,
  SmsTyp: 'Standard' as const,
  SendDate: null,
};

/** The older service's SendText parameters (without the credentials). */
export const LEGACY_PARAMS = {
  Caption: 'bench',
  Sender: 'Bench',
  Recipient: RECIPIENT,
  SMSText: TEXT,
  SmsTyp: '1',
  SendDate: '',
};

/** SendSMS with the credentials, as built by the package's request builder for `transport`. */
export const sendSmsWire = (transport: Transport = 'soap11'): ReturnType<typeof request.buildRequest> =>
  request.buildRequest(
    findOperation('send', 'SendSMS')!,
    { User: USER, Password: PASSWORD, ...SEND_PARAMS },
    { transport, namespace: DEFAULT_NAMESPACES.gateway, path: DEFAULT_PATHS.send },
  );

/** SendText (SOAP 1.1, RPC/encoded) with the credentials. */
export const sendTextWire = (): ReturnType<typeof request.buildRequest> =>
  request.buildRequest(
    findOperation('legacy', 'SendText')!,
    { User: USER, Password: PASSWORD, ...LEGACY_PARAMS },
    { transport: 'soap11', namespace: DEFAULT_NAMESPACES.legacy, path: DEFAULT_PATHS.legacy },
  );

/** A `smsgw-send-sms` node on config node `cfg`: a fixed recipient, text from msg.payload, caption from msg.topic. */
export const sendSmsNode = (id: string, extra: Record<string, unknown> = {}): FlowNode => ({
  id,
  type: 'smsgw-send-sms',
  gateway: 'cfg',
  operation: 'SendSMS',
  recipient: RECIPIENT,
  recipientType: 'str',
  text: 'payload',
  textType: 'msg',
  caption: 'topic',
  captionType: 'msg',
  smsType: 'Standard',
  smsTypeType: 'smstype',
  ...extra,
});

/** The emulator in its own process, with the benchmark account (a balance that never runs out, no duplicate check). */
export const startEmulatorChild = (
  extra: Record<string, unknown> = {},
  execArgv: string[] = [],
): Promise<ChildServer> =>
  startChild(
    'emulator.ts',
    { user: USER, password: PASSWORD, balance: 1e12, duplicateWindowMs: 0, ...extra },
    execArgv,
  );

/**
 * A QueryReceivedDLR SOAP 1.1 answer with `n` delivery reports (5,000: ~2.2 MB), the large answer the decode,
 * invoke, DLR page and anchor benchmarks read; `at` numbers and dates the reports (fresh pages for a trigger).
 */
export function dlrResponse(n: number, at?: { firstId: number; dateMs: number }): string {
  const parts: string[] = [
    '<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" ',
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><soap:Body>',
    `<QueryReceivedDLRResponse xmlns="${DEFAULT_NAMESPACES.gateway}"><QueryReceivedDLRResult><StatusCode>Ok</StatusCode><Value>`,
  ];
  const firstId = at?.firstId ?? 100000;
  for (let i = 0; i < n; i++) {
    const done =
      i % 7 === 0
        ? '0001-01-01T00:00:00'
        : `2026-11-${String(10 + (i % 18))}T10:${String(i % 60).padStart(2, '0')}:03.1234567+01:00`;
    // With `at`: report dates one ms apart from at.dateMs (a page a cursor can move past).
    const date = at
      ? new Date(at.dateMs + i).toISOString()
      : `2026-11-22T09:${String(i % 60).padStart(2, '0')}:00.25Z`;
    parts.push(
      `<SMSReport><Id>${firstId + i}</Id><Recipient>+4917${String(10000000 + i * 7)}</Recipient><JobId>${5000 + (i >> 3)}</JobId>` +
        `<Status>${i % 5 ? 'Delivered' : 'Buffered &amp; retrying'}</Status><Date>${date}</Date>` +
        `<MsgCode>${i % 3}</MsgCode><MsgText>Delivered ${i}; T-Mobile DE, 1/1</MsgText>` +
        `<DoneDate>${done}</DoneDate><DoneDateTimeZoneOffset>60</DoneDateTimeZoneOffset><Sequence>${i % 4}</Sequence>` +
        `<Caption>Campaign Nov/${i % 10} — Grüße</Caption><CreateDate>2026-11-22T08:00:00</CreateDate></SMSReport>`,
    );
  }
  parts.push('</Value></QueryReceivedDLRResult></QueryReceivedDLRResponse></soap:Body></soap:Envelope>');
  return parts.join('');
}
