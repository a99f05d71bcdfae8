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
