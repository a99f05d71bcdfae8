import assert from 'node:assert/strict';
import dns from 'node:dns';
import net from 'node:net';
import fc from 'fast-check';
import { OPERATIONS } from '../../src/catalogue';
import type { OperationDef } from '../../src/catalogue/types';
import type { RunningEmulator } from '../../src/emulator';
import { GatewayError } from '../../src/errors';
import { createResponseDecoder } from '../../src/soap/decode';
import { parseLegacyResult } from '../../src/soap/legacy';
import type { Transport } from '../../src/soap/request';
import { http } from '../emulator/wire/helpers/http';
import { cpuMs } from '../helpers/cpu-cost';
import { FULL, quietEmulator } from './helpers';

// Hostile XML and arbitrary bytes against every response decoder, the older service's string parser and the
// emulator's request reading: only GatewayError (client) or a clean fault/4xx (emulator), bounded memory and
// time, nothing read from disk and no connection anywhere.

const TRANSPORTS: readonly Transport[] = ['soap11', 'soap12', 'get', 'post'];
const SECRET_FILE = '/etc/passwd';
const LEAK = /root:|nologin|\/bin\/(ba)?sh/;

/** The large documents go to every decoder under test:reliability, to a sample of them in npm test. */
const BIG = new Set(['10,000-deep nesting', '1 MB attribute', '1 MB text', '100,000 sibling elements']);
const SAMPLE = new Set(['SendSMS', 'QueryJobs', 'QueryJobInfoByJobCaption', 'GetJobs1', 'SendText']);
const MUST_REFUSE = new Set(['billion laughs', 'external entity', '10,000-deep nesting at the top']);

const envelope = (inner: string, prolog = ''): string =>
  `<?xml version="1.0" encoding="utf-8"?>${prolog}<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>${inner}</soap:Body></soap:Envelope>`;

const laughs = (): string => {
  let dtd = '<!ENTITY lol0 "lol">';
  for (let i = 1; i <= 9; i++) dtd += `<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`;
  return `<!DOCTYPE lolz [${dtd}]>`;
};

/** Hostile documents for an operation: the result element carries the payload where a value would be. */
function hostile(op: OperationDef): Array<[string, string]> {
  const res = `${op.name}Response`;
  const result = `${op.name}Result`;
  const deep = '<a>'.repeat(10_000) + 'x' + '</a>'.repeat(10_000);
  return [
    ['billion laughs', envelope(`<${res}><${result}>&lol9;</${result}></${res}>`, laughs())],
    [
      'external entity',
      envelope(
        `<${res}><${result}>&e;</${result}></${res}>`,
        `<!DOCTYPE x [<!ENTITY e SYSTEM "file://${SECRET_FILE}">]>`,
      ),
    ],
    [
      'external DTD',
      envelope(
        `<${res}><${result}>x</${result}></${res}>`,
        '<!DOCTYPE x SYSTEM "http://203.0.113.1/evil.dtd">',
      ),
    ],
    [
      'parameter entity',
      envelope(`<${res}/>`, `<!DOCTYPE x [<!ENTITY % p SYSTEM "file://${SECRET_FILE}"> %p;]>`),
    ],
    ['10,000-deep nesting', envelope(`<${res}><${result}>${deep}</${result}></${res}>`)],
    ['10,000-deep nesting at the top', '<a>'.repeat(10_000) + '</a>'.repeat(10_000)],
    ['1 MB attribute', envelope(`<${res} a="${'x'.repeat(1024 * 1024)}"><${result}>1</${result}></${res}>`)],
    ['1 MB text', envelope(`<${res}><${result}>${'9'.repeat(1024 * 1024)}</${result}></${res}>`)],
    [
      '100,000 sibling elements',
      envelope(`<${res}><${result}>${'<string>x</string>'.repeat(100_000)}</${result}></${res}>`),
    ],
  ];
}

/** Counts connection attempts and name lookups while a test runs (loopback connections of the test allowed). */
function spyOnNetwork(): { outbound: string[]; restore(): void } {
  const outbound: string[] = [];
  const connect = net.Socket.prototype.connect;
  const lookup = dns.lookup;
  const lookupP = dns.promises.lookup;
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    const o = args[0] as { host?: string; port?: number; path?: string } | number;
    const host = typeof o === 'object' ? (o.host ?? o.path ?? 'localhost') : String(args[1] ?? 'localhost');
    if (!/^(127\.0\.0\.1|::1|localhost)$/.test(host)) outbound.push(`connect ${host}`);
    return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
  } as typeof connect;
  (dns as { lookup: unknown }).lookup = (...args: unknown[]) => {
    outbound.push(`dns ${String(args[0])}`);
    return (lookup as (...a: unknown[]) => unknown)(...args);
  };
  (dns.promises as { lookup: unknown }).lookup = (...args: unknown[]) => {
    outbound.push(`dns ${String(args[0])}`);
    return (lookupP as (...a: unknown[]) => unknown)(...args);
  };
  return {
    outbound,
    restore() {
      net.Socket.prototype.connect = connect;
      (dns as { lookup: unknown }).lookup = lookup;
      (dns.promises as { lookup: unknown }).lookup = lookupP;
    },
  };
}

function decode(op: OperationDef, transport: Transport, text: string | Uint8Array): unknown {
  const d = createResponseDecoder(op, { transport });
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  for (let i = 0; i < bytes.length; i += 64 * 1024) d.write(bytes.subarray(i, i + 64 * 1024));
  return d.end();
}

/** Only a GatewayError may escape; a value must not carry the secret file. */
function onlyGatewayError(fn: () => unknown, what: string): 'value' | 'error' {
  try {
    const v = fn();
    assert.ok(!LEAK.test(JSON.stringify(v) ?? ''), `${what}: file content in the result`);
    return 'value';
  } catch (e) {
    assert.ok(
      e instanceof GatewayError,
      `${what}: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`,
    );
    assert.ok(!LEAK.test(e.message) && !LEAK.test(e.body ?? ''), `${what}: file content in the error`);
    return 'error';
  }
}

describe('reliability: hostile input', function () {
  this.timeout(120_000);
  let spy: ReturnType<typeof spyOnNetwork>;
  beforeEach(() => (spy = spyOnNetwork()));
  afterEach(() => {
    spy.restore();
    assert.deepEqual(spy.outbound, [], 'no outbound connection or name lookup');
  });

  it('every decoder × transport: hostile XML gives a value or a GatewayError, never file content', () => {
    const heapBefore = process.memoryUsage().heapUsed;
    let worst = 0;
    for (const op of OPERATIONS) {
      for (const transport of TRANSPORTS) {
        for (const [name, doc] of hostile(op)) {
          if (!FULL && BIG.has(name) && !SAMPLE.has(op.name)) continue;
          const t0 = cpuMs();
          const outcome = onlyGatewayError(
            () => decode(op, transport, doc),
            `${op.service}/${op.name} ${transport} ${name}`,
          );
          worst = Math.max(worst, cpuMs() - t0);
          // Entities are never expanded (no DTD processing): a document that uses one cannot be read.
          if (MUST_REFUSE.has(name))
            assert.equal(outcome, 'error', `${op.name} ${transport} ${name} must be refused`);
        }
      }
    }
    // A hang or an entity expansion would show here (bounds far above normal, not a benchmark; CPU time, which a
    // loaded machine does not stretch as it does the clock's).
    assert.ok(worst < 10_000, `slowest document took ${worst} ms of CPU`);
    assert.ok(process.memoryUsage().heapUsed - heapBefore < 512 * 2 ** 20);
  });

  it('every decoder: arbitrary bytes and arbitrary XML-ish text give a value or a GatewayError', () => {
    const xmlish = fc
      .array(
        fc.oneof(
          fc.constantFrom(
            '<',
            '>',
            '</',
            '/>',
            '&',
            ';',
            '"',
            '=',
            '<!DOCTYPE x [',
            ']>',
            '<!ENTITY e "',
            '&e;',
            'soap:Envelope',
            'xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"',
            'Body',
            'Fault',
            'Value',
            'StatusCode',
            'Ok',
            '<![CDATA[',
            ']]>',
            '<?xml ?>',
            'xsi:nil="true"',
            'href="#id1"',
            'id="id1"',
          ),
          fc.string({ maxLength: 8 }),
        ),
        { maxLength: 60 },
      )
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(
        fc.constantFrom(...OPERATIONS),
        fc.constantFrom(...TRANSPORTS),
        fc.oneof(fc.uint8Array({ maxLength: 600 }), xmlish),
        (op, transport, input) => {
          onlyGatewayError(() => decode(op, transport, input), `${op.name} ${transport}`);
        },
      ),
      { numRuns: FULL ? 3000 : 800 },
    );
  });

  it('parseLegacyResult: any text with any separator gives a result or a GatewayError', () => {
    const kinds = [...new Set(OPERATIONS.map((o) => o.result.legacy).filter((k) => k !== undefined))];
    assert.ok(kinds.length >= 4);
    fc.assert(
      fc.property(
        fc.constantFrom(...kinds),
        fc.oneof(
          fc.string({ maxLength: 300 }),
          fc
            .array(
              fc.constantFrom(
                'OK',
                'Error',
                ' ',
                '1',
                ';',
                ',',
                '\n',
                '\r\n',
                '2026-11-22 10:00:00',
                '22.11.2026',
                'x',
                '|',
                '-',
                '.',
              ),
              { maxLength: 80 },
            )
            .map((a) => a.join('')),
        ),
        fc.option(fc.string({ maxLength: 3 })),
        fc.constantFrom('utc', 'local'),
        (kind, text, separator, zoneless) => {
          onlyGatewayError(
            () => parseLegacyResult(kind!, text, separator ? { separator, zoneless } : { zoneless }),
            `${kind}`,
          );
        },
      ),
      { numRuns: FULL ? 3000 : 800 },
    );
    assert.doesNotThrow(() =>
      parseLegacyResult('jobs', `1;${'x'.repeat(1024 * 1024)};0;2026-11-22 10:00:00\n`),
    );
  });

  describe('emulator request reading', () => {
    let emu: RunningEmulator;
    before(async () => (emu = await quietEmulator({ maxBodyBytes: 2 * 1024 * 1024 })));
    after(() => emu.close());

    const paths = ['/gateway/Send.asmx', '/gateway/Information.asmx', '/soap/send.asmx'];
    const requestDoc = (name: string): Array<[string, string]> =>
      hostile({ name, service: 'send' } as OperationDef).map(([what, doc]) => [
        what,
        doc.replace(/Response|Result/g, ''),
      ]);

    for (const [what] of requestDoc('SendSMS')) {
      it(`${what}: a clean 4xx or fault, nothing leaked, still alive`, async () => {
        for (const path of paths) {
          const doc = requestDoc(path.includes('soap/') ? 'SendText' : 'SendSMS').find(
            ([w]) => w === what,
          )![1];
          for (const ct of ['text/xml; charset=utf-8', 'application/soap+xml; charset=utf-8']) {
            const res = await http(emu.url, 'POST', path, { 'Content-Type': ct }, doc);
            assert.ok(
              res.status >= 400 && res.status < 600,
              `${path} ${ct}: status ${res.status} ${res.error ?? ''}`,
            );
            assert.ok(!LEAK.test(res.body), `${path}: file content in the answer`);
            if (res.status === 500) assert.match(res.body, /Fault/);
          }
        }
        assert.equal((await http(emu.url, 'GET', '/_emulator/health')).status, 200);
        assert.equal(emu.state.jobs().length, 0, 'nothing was sent');
      });
    }

    it('hostile form bodies and query strings: a clean answer, nothing leaked', async () => {
      const big = 'x'.repeat(1024 * 1024);
      const bodies = [
        `User=demo&Password=x&Caption=${big}`,
        '&'.repeat(100_000),
        `a=${'%'.repeat(10_000)}`,
        '=%E0%A4%A',
      ];
      for (const body of bodies) {
        const res = await http(
          emu.url,
          'POST',
          '/gateway/Send.asmx/SendSMS',
          { 'Content-Type': 'application/x-www-form-urlencoded' },
          body,
        );
        assert.ok(res.status >= 400 && res.status < 600, `status ${res.status}`);
      }
      const res = await http(emu.url, 'GET', `/soap/send.asmx/GetJobs1?${'Trennzeichen=%0A&'.repeat(2000)}`);
      assert.ok(res.status >= 200 && res.status < 600);
      assert.equal((await http(emu.url, 'GET', '/_emulator/health')).status, 200);
    });
  });
});
