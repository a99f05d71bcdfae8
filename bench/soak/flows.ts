/**
 * The soak's flow: what a home-automation user runs for weeks, in one tab. The driver (bench/soak/run.ts) feeds
 * it over http-in endpoints and reads what came out of it from a ledger file the flow appends to, one line per
 * msg: `<kind> <key> <details>`.
 *
 *   S/E  send SMS (outbox on, delivery tracking): output 1 (accepted) / Catch; D/T outputs 2 (final reports) and 3
 *   R    DLR reports trigger, one line per report
 *   I    inbound SMS trigger, one line per message
 *   H    send HLR and its HLR results trigger, one line per result; HE an HLR send that failed
 *   Q    balance and any-operation calls; QE a failed one
 */
import { DEFAULT_NAMESPACES } from '../../src/catalogue';

export interface SoakFlowOptions {
  emulatorUrl: string;
  ledger: string;
  user: string;
  password: string;
  /** Minutes a tracked send waits for its final reports before output 3. */
  trackTimeoutMin: number;
}

/** A function node that appends one line per msg: `${kind} ${key(msg)} ${details(msg)}`. */
function recorder(id: string, kind: string, ledger: string, key: string, details: string, y: number) {
  return {
    id,
    type: 'function',
    z: 'soak',
    x: 900,
    y,
    name: `ledger ${kind}`,
    libs: [{ var: 'fs', module: 'fs' }],
    outputs: 0,
    func: `
let key, details;
try { key = ${key}; details = ${details}; } catch (e) { key = '?'; details = String(e); }
fs.appendFileSync(${JSON.stringify(ledger)}, ${JSON.stringify(kind)} + ' ' + key + ' ' + String(details).replace(/\\s+/g, '_') + '\\n');
return null;`,
  };
}

export function soakFlows(o: SoakFlowOptions): unknown[] {
  const httpIn = (id: string, url: string, y: number, wires: string[]) => ({
    id,
    type: 'http in',
    z: 'soak',
    x: 100,
    y,
    url,
    method: 'post',
    wires: [[...wires, 'answer']],
  });
  return [
    { id: 'soak', type: 'tab', label: 'soak' },
    {
      id: 'cfg',
      type: 'smsgw-config',
      name: 'soak gateway',
      baseUrl: o.emulatorUrl,
      service: 'gateway',
      transport: 'soap11',
      gatewayNamespace: DEFAULT_NAMESPACES.gateway,
      legacyNamespace: DEFAULT_NAMESPACES.legacy,
      timeout: 2,
      maxConnections: 8,
      maxQueue: 1000,
      outbox: true,
      reference: 'suffix',
      referenceSeparator: ' #',
      segmentsSingle: 1,
      segmentsLong: 10,
      checkRecipients: true,
      maxResponseSize: 32,
      credentials: { user: o.user, password: o.password },
    },
    { id: 'answer', type: 'http response', z: 'soak', x: 300, y: 20, statusCode: '', wires: [] },

    // sends: { n } -> one tracked SMS with caption soak-<n>
    httpIn('in-send', '/soak/send', 60, ['mk-send']),
    {
      id: 'mk-send',
      type: 'change',
      z: 'soak',
      x: 300,
      y: 60,
      rules: [
        { t: 'set', p: 'soakId', pt: 'msg', to: 'payload.n', tot: 'msg' },
        { t: 'set', p: 'topic', pt: 'msg', to: '"soak-" & $string(payload.n)', tot: 'jsonata' },
        { t: 'set', p: 'payload', pt: 'msg', to: '"soak message " & $string(payload.n)', tot: 'jsonata' },
        { t: 'delete', p: 'req', pt: 'msg' },
        { t: 'delete', p: 'res', pt: 'msg' },
      ],
      wires: [['send']],
    },
    {
      id: 'send',
      type: 'smsgw-send-sms',
      z: 'soak',
      x: 500,
      y: 60,
      name: 'tracked send',
      gateway: 'cfg',
      output: 'payload',
      operation: 'SendSMS',
      recipient: '+4917012345678',
      recipientType: 'str',
      text: 'payload',
      textType: 'msg',
      sender: '',
      senderType: 'str',
      caption: 'topic',
      captionType: 'msg',
      smsType: 'Standard',
      smsTypeType: 'smstype',
      sendDate: '',
      sendDateType: 'str',
      jobPriority: '',
      jobPriorityType: 'num',
      track: true,
      trackTimeout: o.trackTimeoutMin,
      outputs: 3,
      wires: [['rec-s'], ['rec-d'], ['rec-t']],
    },
    { id: 'catch-send', type: 'catch', z: 'soak', x: 500, y: 140, scope: ['send'], wires: [['rec-e']] },
    recorder(
      'rec-s',
      'S',
      o.ledger,
      'msg.soakId',
      "msg.payload.JobId + (msg.payload.restored ? ' restored' : '')",
      40,
    ),
    recorder(
      'rec-d',
      'D',
      o.ledger,
      'msg.soakId',
      "msg.jobId + ' ' + msg.payload.delivered + ' ' + msg.payload.failed",
      80,
    ),
    recorder(
      'rec-t',
      'T',
      o.ledger,
      'msg.soakId',
      "msg.jobId + ' ' + JSON.stringify(msg.payload.reports ? msg.payload.reports.length : '')",
      120,
    ),
    recorder(
      'rec-e',
      'E',
      o.ledger,
      'msg.soakId',
      "(msg.error && msg.error.code) + ' ' + (msg.error && msg.error.message)",
      160,
    ),

    // HLR: { n } -> SendHLR for one number; results come from the HLR results trigger
    httpIn('in-hlr', '/soak/hlr', 220, ['mk-hlr']),
    {
      id: 'mk-hlr',
      type: 'change',
      z: 'soak',
      x: 300,
      y: 220,
      rules: [
        { t: 'set', p: 'soakId', pt: 'msg', to: 'payload.n', tot: 'msg' },
        { t: 'set', p: 'topic', pt: 'msg', to: '"hlr-" & $string(payload.n)', tot: 'jsonata' },
        { t: 'set', p: 'payload', pt: 'msg', to: 'payload.number', tot: 'msg' },
        { t: 'delete', p: 'req', pt: 'msg' },
        { t: 'delete', p: 'res', pt: 'msg' },
      ],
      wires: [['send-hlr']],
    },
    {
      id: 'send-hlr',
      type: 'smsgw-send-hlr',
      z: 'soak',
      x: 500,
      y: 220,
      gateway: 'cfg',
      output: 'payload',
      recipient: 'payload',
      recipientType: 'msg',
      caption: 'topic',
      captionType: 'msg',
      wait: false,
      waitTimeout: 60,
      wires: [[]],
    },
    { id: 'catch-hlr', type: 'catch', z: 'soak', x: 500, y: 260, scope: ['send-hlr'], wires: [['rec-he']] },
    recorder(
      'rec-he',
      'HE',
      o.ledger,
      'msg.soakId',
      "(msg.error && msg.error.code) + ' ' + (msg.error && msg.error.message)",
      260,
    ),

    // triggers
    {
      id: 'inbound',
      type: 'smsgw-inbound',
      z: 'soak',
      x: 500,
      y: 320,
      gateway: 'cfg',
      interval: 1,
      inputs: 0,
      store: '',
      dropReports: false,
      wires: [['rec-i']],
    },
    recorder('rec-i', 'I', o.ledger, 'msg.sms.Id', 'msg.payload', 320),
    {
      id: 'dlr',
      type: 'smsgw-dlr',
      z: 'soak',
      x: 500,
      y: 360,
      gateway: 'cfg',
      interval: 2,
      inputs: 0,
      store: '',
      finalOnly: false,
      finalStates: 'DELIVERED,DELIVRD,UNDELIV,UNDELIVERABLE,EXPIRED,REJECTED,REJECTD,DELETED,FAILED',
      pendingStates: 'ACCEPTED,ACCEPTD,ENROUTE,BUFFERED,SENT,SUBMITTED,PENDING,QUEUED,SCHEDULED',
      lookback: 60,
      wires: [['rec-r']],
    },
    recorder(
      'rec-r',
      'R',
      o.ledger,
      "msg.jobId + '/' + msg.recipient + '/' + msg.payload.Status",
      'msg.statusKind',
      360,
    ),
    {
      id: 'hlr',
      type: 'smsgw-hlr-results',
      z: 'soak',
      x: 500,
      y: 400,
      gateway: 'cfg',
      interval: 2,
      inputs: 0,
      store: '',
      limit: 0,
      wires: [['rec-h']],
    },
    recorder('rec-h', 'H', o.ledger, 'msg.payload.Id', "msg.jobId + '/' + msg.topic", 400),
    {
      id: 'catch-triggers',
      type: 'catch',
      z: 'soak',
      x: 500,
      y: 440,
      scope: ['inbound', 'dlr', 'hlr'],
      wires: [['rec-pe']],
    },
    recorder(
      'rec-pe',
      'PE',
      o.ledger,
      '(msg.error && msg.error.source && msg.error.source.type)',
      "(msg.error && msg.error.code) + ' ' + (msg.error && msg.error.message)",
      440,
    ),

    // queries: balance and any operation
    httpIn('in-query', '/soak/query', 500, ['balance', 'call']),
    {
      id: 'balance',
      type: 'smsgw-balance',
      z: 'soak',
      x: 500,
      y: 500,
      gateway: 'cfg',
      output: 'payload',
      operation: 'auto',
      threshold: '',
      thresholdType: 'num',
      outputs: 1,
      wires: [['rec-q']],
    },
    {
      id: 'call',
      type: 'smsgw-call',
      z: 'soak',
      x: 500,
      y: 540,
      gateway: 'cfg',
      service: 'information',
      path: '',
      operation: 'QueryAccountBalance',
      auth: 'auto',
      userParam: '',
      passwordParam: '',
      typed: false,
      lists: '',
      namespace: '',
      soapAction: '',
      output: 'payload',
      wires: [['rec-q']],
    },
    {
      id: 'catch-q',
      type: 'catch',
      z: 'soak',
      x: 500,
      y: 580,
      scope: ['balance', 'call'],
      wires: [['rec-qe']],
    },
    recorder('rec-q', 'Q', o.ledger, "'ok'", 'typeof msg.payload', 520),
    recorder(
      'rec-qe',
      'QE',
      o.ledger,
      '(msg.error && msg.error.code)',
      '(msg.error && msg.error.message)',
      580,
    ),
  ];
}
