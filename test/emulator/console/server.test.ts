import { strict as assert } from 'node:assert';
import { Script } from 'node:vm';
import { parse as parseJs } from 'espree';
import { findOperation } from '../../../src/catalogue';
import { GatewayState, startEmulator, type RunningEmulator } from '../../../src/emulator';
import { http } from '../wire/helpers/http';
import { SseClient } from './helpers/sse';

// The console served by the emulator itself: page, assets, guard, and the event stream against a real state.

const PASSWORD = 'console-secret-pw';

function sendPath(recipient: string, text: string, caption = 'console-test'): string {
  const q = new URLSearchParams({
    User: 'demo',
    Password: PASSWORD,
    Caption: caption,
    Sender: 'ACME',
    Recipient: recipient,
    SMSText: text,
    SmsTyp: 'Standard',
    SendDate: '',
  });
  return `/gateway/Send.asmx/SendSimpleSMS?${q.toString()}`;
}

const jobIdOf = (xml: string): number => Number(/<JobId>(\d+)<\/JobId>/.exec(xml)?.[1] ?? NaN);

describe('console: served by the emulator', () => {
  let emu: RunningEmulator;
  let host: string;
  const streams: SseClient[] = [];
  const open = async (headers: Record<string, string> = {}): Promise<SseClient> => {
    const s = await SseClient.open(emu.url, headers);
    streams.push(s);
    return s;
  };
  const json = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    http(
      emu.url,
      method,
      path,
      { 'Content-Type': 'application/json', ...headers },
      body === undefined ? undefined : JSON.stringify(body),
    );

  before(async () => {
    emu = await startEmulator({
      password: PASSWORD,
      balance: 50,
      timing: { processingMs: 60_000, deliveryMs: 60_000 },
    });
    host = new URL(emu.url).host;
  });
  afterEach(() => {
    for (const s of streams.splice(0)) s.close();
  });
  after(() => emu.close());

  describe('page and assets', () => {
    it('GET / is the page with a strict CSP, nosniff and no inline script or style', async () => {
      const res = await http(emu.url, 'GET', '/');
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
      assert.match(String(res.headers['content-security-policy']), /^default-src 'self'(;|$)/);
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      assert.match(res.body, /<script src="\/console\/console\.js" defer><\/script>/);
      assert.doesNotMatch(res.body, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
      assert.doesNotMatch(res.body, /\sstyle=|<style|\son[a-z]+=/i, 'no inline style or handlers');
      assert.doesNotMatch(res.body, /https?:\/\/(?!www\.w3\.org)/, 'nothing from elsewhere');
      assert.match(res.body, /<option value="SendSMS">/, 'fault form offers the operations');
    });

    it('serves the script, the styles and the icon with their types; the script compiles', async () => {
      const js = await http(emu.url, 'GET', '/console/console.js');
      assert.equal(js.status, 200);
      assert.equal(js.headers['content-type'], 'text/javascript; charset=utf-8');
      assert.doesNotThrow(() => new Script(js.body, { filename: 'console.js' }));
      // ES2018 at most (espree comes with eslint): no optional chaining, ?? or other newer syntax
      assert.doesNotThrow(() => parseJs(js.body, { ecmaVersion: 2018 }));
      const stray = [...js.body].filter(
        (c) => c.charCodeAt(0) < 0x20 && c !== '\n' && c !== '\r' && c !== '\t',
      );
      assert.deepEqual(stray, [], 'no stray control characters');
      assert.doesNotMatch(js.body, /innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/);
      assert.match(js.body, /new EventSource\('\/_emulator\/events'\)/);
      const css = await http(emu.url, 'GET', '/console/console.css');
      assert.equal(css.headers['content-type'], 'text/css; charset=utf-8');
      assert.match(css.body, /prefers-color-scheme: dark/);
      const icon = await http(emu.url, 'GET', '/console/favicon.svg');
      assert.equal(icon.headers['content-type'], 'image/svg+xml');
      for (const r of [js, css, icon]) assert.equal(r.headers['x-content-type-options'], 'nosniff');
    });

    it('HEAD answers without a body; other methods 405; unknown assets 404; /console redirects', async () => {
      const head = await http(emu.url, 'HEAD', '/');
      assert.equal(head.status, 200);
      assert.equal(head.body, '');
      assert.equal((await http(emu.url, 'POST', '/', {}, 'x')).status, 405);
      assert.equal((await http(emu.url, 'GET', '/console/nope.js')).status, 404);
      const redirect = await http(emu.url, 'GET', '/console');
      assert.equal(redirect.status, 308);
      assert.equal(redirect.headers.location, '/');
    });
  });

  describe('Host and Origin guard', () => {
    it('refuses the page, the stream and the control API under a foreign Host', async () => {
      const evil = { Host: `rebind.attacker.example:${emu.port}` };
      assert.equal((await http(emu.url, 'GET', '/', evil)).status, 403);
      assert.equal((await http(emu.url, 'GET', '/_emulator/state', evil)).status, 403);
      assert.equal(
        (await json('POST', '/_emulator/balance', { user: 'demo', balance: 1 }, evil)).status,
        403,
      );
      const stream = await open(evil);
      assert.equal(stream.status, 403);
      assert.equal(
        (await json('GET', '/_emulator/health', undefined, { Host: `localhost:${emu.port}` })).status,
        200,
      );
    });

    it('refuses control calls a foreign page makes through the browser (Origin)', async () => {
      const res = await json(
        'POST',
        '/_emulator/faults',
        { kind: 'reset' },
        { Origin: 'http://attacker.example' },
      );
      assert.equal(res.status, 403);
      assert.deepEqual(emu.faults.list(), []);
      const own = await json('GET', '/_emulator/faults', undefined, { Origin: `http://${host}` });
      assert.equal(own.status, 200);
    });

    it('leaves the service endpoints to any Host (clients behind names and proxies)', async () => {
      const res = await http(emu.url, 'GET', '/gateway/Send.asmx?WSDL', {
        Host: `gateway.example:${emu.port}`,
      });
      assert.equal(res.status, 200);
    });
  });

  describe('event stream', () => {
    it('starts with a snapshot without any password', async () => {
      const s = await open();
      assert.equal(s.status, 200);
      assert.equal(s.headers['content-type'], 'text/event-stream; charset=utf-8');
      const snap = (await s.next('snapshot')).data as { accounts: { user: string; balance: number }[] };
      assert.equal(snap.accounts[0]!.user, 'demo');
      assert.ok(!s.raw.includes(PASSWORD));
    });

    it('reports a sent SMS, the request that sent it (password masked), reports, replies and balance', async () => {
      const s = await open();
      await s.next('snapshot');
      const sent = await http(emu.url, 'GET', sendPath('+4917012340001', 'Hello phone'));
      assert.equal(sent.status, 200);
      const id = jobIdOf(sent.body);
      const job = (await s.next('job', (j) => j.id === id)).data as Record<string, unknown>;
      assert.deepEqual(
        [job.text, job.status, job.encoding, job.keys],
        ['Hello phone', 'Offen', 'gsm7', ['4917012340001']],
      );
      const req = (await s.next('request', (r) => r.operation === 'SendSimpleSMS')).data as Record<
        string,
        string
      >;
      assert.equal(req.transport, 'get');
      assert.match(req.request, /Password=\*\*\*/);

      await s.next('balance');
      assert.equal(
        (await json('POST', '/_emulator/subscriber', { number: '+4917012340001', state: 'unreachable' }))
          .status,
        200,
      );
      await s.next(
        'subscribers',
        (d) => (d.subscribers as Record<string, string>)['4917012340001'] === 'unreachable',
      );
      // the job already went to the network with the number reachable; a new one fails
      const failing = jobIdOf((await http(emu.url, 'GET', sendPath('+4917012340001', 'second'))).body);
      assert.equal((await json('POST', '/_emulator/finish')).status, 200);
      const report = (await s.next('report', (r) => r.jobId === failing)).data as Record<string, unknown>;
      assert.deepEqual([report.status, report.key], ['EXPIRED', '4917012340001']);
      await s.next('job', (j) => j.id === failing && j.status === 'Fehler');
      await s.next('balance', (b) => (b.balance as number) < 50);

      assert.equal(
        (await json('POST', '/_emulator/inbound', { from: '+4917012340001', text: 'Yes!', jobId: id }))
          .status,
        200,
      );
      const reply = (await s.next('inbound', (m) => m.text === 'Yes!')).data as Record<string, unknown>;
      assert.deepEqual([reply.key, reply.jobId, reply.collected], ['4917012340001', id, false]);
      const collect = `/gateway/Information.asmx/QueryReceivedNewSMS?User=demo&Password=${PASSWORD}`;
      assert.match((await http(emu.url, 'GET', collect)).body, /Yes!/);
      await s.next('inbound', (m) => m.text === 'Yes!' && m.collected === true);
      assert.ok(!s.raw.includes(PASSWORD), 'the stream never carries the password');
    });

    it('shows queued faults, their use, and a cleared request log', async () => {
      const s = await open();
      await s.next('snapshot');
      await json('POST', '/_emulator/faults', { kind: 'http503', count: 1 });
      await s.next('faults', (d) => (d.faults as unknown[]).length === 1);
      const r = await http(
        emu.url,
        'GET',
        '/gateway/Information.asmx/QueryAccountBalance?User=demo&Password=x',
      );
      assert.equal(r.status, 503);
      await s.next('faults', (d) => (d.faults as unknown[]).length === 0);
      await s.next('request', (e) => e.fault === 'http503');
      await json('DELETE', '/_emulator/requests');
      await s.next('requests', (d) => (d.requests as unknown[]).length === 0);
    });

    it('sends changes made in-process through the control object', async () => {
      const s = await open();
      await s.next('snapshot');
      const { id } = emu.control.injectInbound({ from: '+4917012340002', text: 'in-process' });
      const m = (await s.next('inbound', (d) => d.id === id)).data as Record<string, unknown>;
      assert.deepEqual([m.from, m.text, m.collected], ['+4917012340002', 'in-process', false]);
    });
  });
});

describe('console: jobs that move on by the clock alone', () => {
  it('shows the final state without any further request', async () => {
    const emu = await startEmulator({ timing: { processingMs: 20, deliveryMs: 20 } });
    const s = await SseClient.open(emu.url);
    try {
      await s.next('snapshot');
      const q = new URLSearchParams({
        User: 'demo',
        Password: 'demo-password',
        Caption: 'c',
        Sender: 'S',
        Recipient: '+4917012340003',
        SMSText: 't',
        SmsTyp: 'Standard',
        SendDate: '',
      });
      const id = jobIdOf(
        (await http(emu.url, 'GET', `/gateway/Send.asmx/SendSimpleSMS?${q.toString()}`)).body,
      );
      const job = (await s.next('job', (j) => j.id === id && j.status === 'Erledigt', 4000)).data as {
        reports: { recipient: string; status: string }[];
      };
      // The final picture carries the delivery report too, without any request after the send.
      assert.deepEqual(
        job.reports.map((r) => [r.recipient, r.status]),
        [['+4917012340003', 'DELIVERED']],
      );
    } finally {
      s.close();
      await emu.close();
    }
  });
});

describe('console: switched off', () => {
  it('console: false leaves / unanswered and the stream unknown', async () => {
    const emu = await startEmulator({ console: false });
    try {
      assert.equal((await http(emu.url, 'GET', '/')).status, 404);
      assert.equal((await http(emu.url, 'GET', '/_emulator/events')).status, 404);
      assert.equal(emu.sandboxConsole, undefined);
    } finally {
      await emu.close();
    }
  });
});

describe('console: a backend that fails or holds much', () => {
  class FlakyState extends GatewayState {
    fail = false;
    override snapshot(): unknown {
      if (this.fail) throw new Error('snapshot broke');
      return super.snapshot();
    }
  }

  it('answers 500 to a new stream and keeps serving when the snapshot throws', async () => {
    const backend = new FlakyState();
    const emu = await startEmulator({ backend });
    const s = await SseClient.open(emu.url);
    try {
      await s.next('snapshot');
      backend.fail = true;
      const second = await SseClient.open(emu.url);
      second.close();
      assert.equal(second.status, 500);
      emu.control.injectInbound({ from: '+4917000000001', text: 'while broken' });
      await new Promise((r) => setTimeout(r, 100));
      backend.fail = false;
      emu.control.injectInbound({ from: '+4917000000001', text: 'after' });
      await s.next('inbound', (m) => m.text === 'after');
      assert.equal((await http(emu.url, 'GET', '/_emulator/health')).status, 200);
    } finally {
      s.close();
      await emu.close();
    }
  });

  it('starts a page with the newest 500 jobs only', async () => {
    const emu = await startEmulator({ balance: 10_000 });
    const op = findOperation('send', 'SendSimpleSMS')!;
    const ctx = { remoteAddress: '127.0.0.1', transport: 'soap11' as const };
    for (let i = 0; i < 520; i++) {
      emu.state.invoke(
        op,
        {
          User: 'demo',
          Password: 'demo-password',
          Caption: `c${i}`,
          Sender: 'S',
          Recipient: '+4917000000002',
          SMSText: `t${i}`,
          SmsTyp: 'Standard',
          SendDate: '',
        },
        ctx,
      );
    }
    const s = await SseClient.open(emu.url);
    try {
      const snap = (await s.next('snapshot')).data as { jobs: { caption: string }[] };
      assert.equal(snap.jobs.length, 500);
      assert.equal(snap.jobs[499]!.caption, 'c519');
    } finally {
      s.close();
      await emu.close();
    }
  });
});

describe('console: phone keys', () => {
  it('groups national numbers with the emulator’s defaultCountryCode', async () => {
    const emu = await startEmulator({ defaultCountryCode: '43' });
    const s = await SseClient.open(emu.url);
    try {
      await s.next('snapshot');
      emu.control.injectInbound({ from: '0660 1234567', text: 'servus' });
      const m = (await s.next('inbound', (d) => d.text === 'servus')).data as { key: string };
      assert.equal(m.key, '436601234567');
    } finally {
      s.close();
      await emu.close();
    }
  });
});
