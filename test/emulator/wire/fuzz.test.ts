import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { connect } from 'node:net';
import { startEmulator, type RunningEmulator } from '../../../src/emulator';
import { http } from './helpers/http';

// Whatever arrives, the emulator answers with an HTTP status and keeps running.

const GW = 'https://gateway.smsgw.example/';
const VALID: Array<{ path: string; headers: Record<string, string>; body: string }> = [
  {
    path: '/gateway/Send.asmx',
    headers: { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: `"${GW}SendSMS"` },
    body: `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><soap:Body><SendSMS xmlns="${GW}"><User>demo</User><Password>pw</Password><Caption>c</Caption><Sender>s</Sender><Recipient><string>+4917012345678</string><string xsi:nil="true" /></Recipient><SMSText>hi</SMSText><SmsTyp>Standard</SmsTyp><SendDate>2026-11-22T10:00:00Z</SendDate><JobPriority>1</JobPriority></SendSMS></soap:Body></soap:Envelope>`,
  },
  {
    path: '/soap/send.asmx',
    headers: { 'Content-Type': 'application/soap+xml; charset=utf-8' },
    body: `<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope" xmlns:enc="http://www.w3.org/2003/05/soap-encoding" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><e:Body><t:SMSCR xmlns:t="https://gateway.smsgw.example/soap/"><serial>demo</serial><password>pw</password><bRecipient>KzQ5MTcw</bRecipient><SendDate>2026-11-22</SendDate><SmsTyp>1</SmsTyp><Msg enc:id="a">x</Msg><caption enc:ref="a" /></t:SMSCR></e:Body></e:Envelope>`,
  },
  {
    path: '/soap/send.asmx',
    headers: {
      'Content-Type': 'text/xml; charset=utf-8',
      SOAPAction: 'https://gateway.smsgw.example/soap/SendSMS',
    },
    body: `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:c="http://schemas.xmlsoap.org/soap/encoding/" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><s:Body><m:SendSMS xmlns:m="https://gateway.smsgw.example/soap/"><User>demo</User><Password>pw</Password><Recipient href="#id1" /></m:SendSMS><c:Array id="id1" c:arrayType="xsd:string[1]"><Item href="#id1" /></c:Array></s:Body></s:Envelope>`,
  },
];

const isAnswer = (status: number): boolean => status >= 200 && status < 600;

describe('emulator wire: fuzzing', function () {
  this.timeout(120_000);
  let emu: RunningEmulator;
  before(async () => {
    emu = await startEmulator({
      password: 'pw',
      maxBodyBytes: 32 * 1024,
      timing: { processingMs: 0, deliveryMs: 0 },
    });
  });
  after(() => emu.close());
  afterEach(async () => {
    assert.equal((await http(emu.url, 'GET', '/_emulator/health')).status, 200, 'still alive');
  });

  it('arbitrary bytes with arbitrary SOAP-ish headers', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 2048 }),
        fc.constantFrom(
          'text/xml; charset=utf-8',
          'application/soap+xml',
          'text/plain',
          'application/x-www-form-urlencoded',
          'text/xml; charset=utf-16',
          '',
        ),
        fc.option(fc.string({ maxLength: 40 })),
        fc.constantFrom(
          '/gateway/Send.asmx',
          '/soap/send.asmx',
          '/gateway/Information.asmx/QueryJobs',
          '/soap/send.asmx/SMSCR',
          '/_emulator/faults',
        ),
        async (bytes, ct, action, p) => {
          const headers: Record<string, string> = {};
          if (ct) headers['Content-Type'] = ct;
          if (action !== null) headers.SOAPAction = action.replace(/[^\x20-\x7e]/g, '');
          const res = await http(emu.url, 'POST', p, headers, Buffer.from(bytes));
          assert.ok(isAnswer(res.status), `status ${res.status} ${res.error ?? ''}`);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('mutated valid envelopes', async () => {
    const mutation = fc.record({
      which: fc.nat({ max: VALID.length - 1 }),
      edits: fc.array(
        fc.record({
          at: fc.nat(),
          remove: fc.nat({ max: 12 }),
          insert: fc.oneof(
            fc.constantFrom(
              '',
              '<',
              '>',
              '&',
              '"',
              '</a>',
              '<x:',
              'xsi:nil="true"',
              '&#0;',
              ']]>',
              '\u00e4',
              'abc',
              '-1',
              '#id1',
              '<!DOCTYPE a>',
            ),
            fc.string({ maxLength: 5 }),
          ),
        }),
        { minLength: 1, maxLength: 4 },
      ),
    });
    await fc.assert(
      fc.asyncProperty(mutation, async ({ which, edits }) => {
        const base = VALID[which] as (typeof VALID)[number];
        let text = base.body;
        for (const e of edits) {
          const at = e.at % (text.length + 1);
          text = text.slice(0, at) + e.insert + text.slice(at + e.remove);
        }
        const res = await http(emu.url, 'POST', base.path, base.headers, text);
        assert.ok(isAnswer(res.status), `status ${res.status} ${res.error ?? ''}`);
        if (res.status === 500) assert.match(res.body, /Fault/);
      }),
      { numRuns: 300 },
    );
  });

  it('arbitrary GET query strings and method names', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 30 }), fc.string({ maxLength: 200 }), async (name, query) => {
        const p = `/gateway/Send.asmx/${encodeURIComponent(name)}?${encodeURI(query).replace(/#/g, '%23')}`;
        const res = await http(emu.url, 'GET', p);
        assert.ok(isAnswer(res.status), `status ${res.status} ${res.error ?? ''}`);
      }),
      { numRuns: 200 },
    );
  });

  it('raw bytes instead of HTTP: answered or closed, never a crash', async () => {
    const port = Number(new URL(emu.url).port);
    const prefix = fc.constantFrom(
      '',
      'POST /gateway/Send.asmx HTTP/1.1\r\n',
      'GET /soap/send.asmx/SendSMS?',
      'POST /_emulator/faults HTTP/1.1\r\nContent-Length: 5\r\n\r\n',
    );
    await fc.assert(
      fc.asyncProperty(prefix, fc.uint8Array({ maxLength: 512 }), async (head, bytes) => {
        const answer = await new Promise<string>((resolve) => {
          const socket = connect(port, '127.0.0.1');
          let got = '';
          socket.setTimeout(2000, () => socket.destroy());
          socket.on('data', (d) => (got += d.toString('latin1')));
          socket.on('error', () => undefined);
          socket.on('close', () => resolve(got));
          socket.end(Buffer.concat([Buffer.from(head, 'latin1'), Buffer.from(bytes)]));
        });
        assert.ok(answer === '' || answer.startsWith('HTTP/1.1 '), answer.slice(0, 40));
      }),
      { numRuns: 100 },
    );
  });
});
