/**
 * Text from phones and the gateway in the Node-RED log: a reply or a fault string holding a line break cannot
 * write a line of its own (Node-RED writes each entry as one line behind a date, so a second line would pass for
 * the runtime's), and one number's wrong replies give one line a minute, not one each.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  collect,
  flowWith,
  helper,
  loadFlow,
  send,
  startEnv,
  statuses,
  stopEnv,
  waitFor,
  type EmulatedJob,
  type Env,
  type FlowNode,
} from './helpers';

const A = '+491701110001';
const FORGED = '26 Nov 00:00:00 - [error] FORGED';
/** Every character a terminal, a log file or a log viewer may take as the end of a line. */
const LINE_BREAK = /[\n\r\v\f\u0085\u2028\u2029]/;

interface LogEntry {
  level: number;
  msg: unknown;
}

/** What Node-RED logged since `from` (its log call's entries), each as the text it writes. */
function logged(from = 0): string[] {
  const spy = helper.log() as unknown as { args: LogEntry[][] };
  return spy.args.slice(from).map(([e]) => {
    const m = e!.msg;
    return m instanceof Error ? m.toString() : typeof m === 'string' ? m : String(JSON.stringify(m));
  });
}

const logCount = (): number => (helper.log() as unknown as { args: unknown[] }).args.length;

const asker = (extra: Record<string, unknown> = {}): FlowNode => ({
  id: 'ask',
  type: 'smsgw-ask',
  gateway: 'cfg',
  question: 'payload',
  questionType: 'msg',
  numbers: A,
  numbersType: 'str',
  wait: 60,
  waitUnit: 's',
  rounds: 1,
  ack: '1',
  pass: '2',
  tell: 'none',
  interval: 1,
  wires: [['out'], ['out2']],
  ...extra,
});

describe('nodes: text from phones and the gateway in logs and statuses', function () {
  this.timeout(60_000);
  let env: Env;
  beforeEach(async () => {
    env = await startEnv();
  });
  afterEach(() => stopEnv(env));

  const jobsTo = (n: string): EmulatedJob[] =>
    (env.emu.control.snapshot() as { accounts: { jobs: EmulatedJob[] }[] }).accounts
      .flatMap((a) => a.jobs)
      .filter((j) => j.recipients.includes(n));
  const reply = (text: string): void => {
    const last = jobsTo(A).sort((a, b) => b.id - a.id)[0];
    env.emu.control.injectInbound({ from: A, text, ...(last ? { jobId: last.id } : {}) });
  };

  it('a reply holding a line break writes no line of its own into the log', async () => {
    await loadFlow(flowWith(env.emu.url, [asker()]));
    send('ask', { payload: 'Freezer too warm' });
    await waitFor(() => jobsTo(A).length === 1);
    const from = logCount();
    reply(`x\n${FORGED}`);
    await waitFor(() => logged(from).some((l) => l.includes('FORGED')), 10_000);
    const lines = logged(from);
    for (const line of lines) assert.ok(!LINE_BREAK.test(line), `one line: ${JSON.stringify(line)}`);
    // As Node-RED writes them: no line starts with the forged text; the reply is shown with its break escaped.
    const written = lines.flatMap((l) => l.split(LINE_BREAK));
    assert.ok(!written.some((l) => l.startsWith(FORGED)), written.join('\n'));
    assert.ok(
      lines.some((l) => l.includes('"x\\n26 Nov 00:00:00 - [error]') && l.includes(A)),
      lines.join('\n'),
    );
  });

  it('300 wrong replies from one number: one line in the log, not 300 (the rest counted in a line a minute)', async () => {
    await loadFlow(flowWith(env.emu.url, [asker()]));
    send('ask', { payload: 'Pump stopped' });
    await waitFor(() => jobsTo(A).length === 1);
    const started = Date.now();
    const from = logCount();
    const out = collect('out');
    for (let i = 0; i < 300; i++) reply(`wrong ${i}`);
    // Replies are taken in order: once the right one has answered, the 300 before it have been looked at.
    reply('1');
    await waitFor(() => out.messages.length === 1, 30_000);
    const about = logged(from).filter((l) => l.includes(A) && /ignored|not an accepted answer/.test(l));
    // One line for the first, then one a minute at most (this test takes far less on any machine, but counts it).
    const minutes = Math.floor((Date.now() - started) / 60_000);
    assert.ok(about.length >= 1 && about.length <= 1 + minutes, about.join('\n'));
    assert.match(about[0]!, /"wrong 0" from \+491701110001 is not an accepted answer/);
  });

  describe('a gateway whose fault string holds a line break', () => {
    let server: Server;
    let url = '';
    before(async () => {
      server = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          res.writeHead(500, { 'content-type': 'text/xml; charset=utf-8' });
          res.end(
            '<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">' +
              `<soap:Body><soap:Fault><faultcode>soap:Server</faultcode><faultstring>bad&#13;&#10;${FORGED}&#x2028;${FORGED}</faultstring></soap:Fault></soap:Body></soap:Envelope>`,
          );
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(() => new Promise<void>((r) => server.close(() => r())));

    it('the error a Catch node hears, its log line and the red status are one line each', async () => {
      // The namespace set: no WSDL is asked for (this gateway answers everything with its fault).
      await loadFlow(
        flowWith(url, [{ id: 'bal', type: 'smsgw-balance', gateway: 'cfg', wires: [['out']] }], {
          gatewayNamespace: 'https://gateway.smsgw.example/',
        }),
      );
      const caught = collect('caught');
      send('bal', {});
      await waitFor(() => caught.messages.length === 1, 10_000);
      const error = caught.messages[0]!.error as { code: string; message: string };
      assert.equal(error.code, 'FAULT');
      assert.ok(!LINE_BREAK.test(error.message), error.message);
      assert.match(error.message, /bad\\r\\n26 Nov 00:00:00 - \[error\] FORGED\\u2028/);
      // Without a Catch node, Node-RED logs the error: as one line.
      await helper.unload();
      await loadFlow(
        flowWith(url, [{ id: 'bal', type: 'smsgw-balance', gateway: 'cfg', wires: [['out']] }], {
          gatewayNamespace: 'https://gateway.smsgw.example/',
        }).filter((n) => n.type !== 'catch'),
      );
      const before = logCount();
      send('bal', {});
      await waitFor(() => logged(before).some((l) => l.includes('FORGED')), 10_000);
      for (const line of logged(before)) assert.ok(!LINE_BREAK.test(line), JSON.stringify(line));
      const status = String(statuses('bal').at(-1)?.text);
      assert.ok(!LINE_BREAK.test(status), status);
    });
  });
});
