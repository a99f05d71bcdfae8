/**
 * The any-operation node in a real Node-RED (its own process, this package linked into its user directory, a
 * 1 GiB heap as in the report) gets the 23 MB answer of tiny elements. Before the generic path had
 * its own limits, that answer ran the heap out of memory and blocked an unrelated endpoint for 25 s. Now: the call
 * fails with PARSE naming maxElements, Node-RED stays up, its peak RSS stays under 300 MB above its start, and an
 * http-in endpoint of another flow answers throughout, each time within 1 s of Node-RED's CPU time (its main
 * thread's, from Linux's /proc: a loaded machine stretches the clock's time, not that). Needs dist/ (npm run
 * build).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { deployFlows, writeSettings } from '../../scripts/lib/nodered';
import { ROOT } from '../../scripts/lib/package';
import { childEnv, freePort, start, waitForHttp, type Started } from '../../scripts/lib/proc';

const S11 = 'http://schemas.xmlsoap.org/soap/envelope/';
const NS = 'urn:bounded';
const ELEMENTS = 2_900_000;
const MiB = 1024 * 1024;

/**
 * GETs argv[1] every 100 ms and prints, for each answer, a line "<ms> <cpu ms>" (after "ready"): how long it took,
 * and how much CPU time the main thread of process argv[2] (Node-RED) used meanwhile, from Linux's count per
 * thread (/proc/<pid>/task/<pid>/schedstat, up to date at every tick). Until stdin says stop.
 */
const PINGER = `
const { readFileSync } = require('node:fs');
const pid = process.argv[2];
const cpuMs = () => Number(readFileSync('/proc/' + pid + '/task/' + pid + '/schedstat', 'latin1').split(' ')[0]) / 1e6;
let on = true;
process.stdin.on('data', () => (on = false)).resume();
(async () => {
  // Not timed: the first fetch of a process loads and sets up its HTTP client.
  await (await fetch(process.argv[1])).text();
  process.stdout.write('ready\\n');
  while (on) {
    const t = performance.now();
    const c = cpuMs();
    const res = await fetch(process.argv[1], { signal: AbortSignal.timeout(60000) });
    await res.text();
    process.stdout.write(Math.round(performance.now() - t) + ' ' + Math.round(cpuMs() - c) + '\\n');
    await new Promise((r) => setTimeout(r, 100));
  }
  process.exit(0);
})().catch((e) => { process.stdout.write('error ' + e + '\\n'); process.exit(1); });
`;

/** A gateway whose QueryReceivedDLR answer is 23 MB of `<a>1</a>`, streamed with backpressure. */
async function bigAnswerGateway(): Promise<{ url: string; written: () => number; close(): Promise<void> }> {
  const head = Buffer.from(
    `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${S11}"><soap:Body>` +
      `<QueryReceivedDLRResponse xmlns="${NS}"><QueryReceivedDLRResult><StatusCode>Ok</StatusCode><Value>`,
  );
  const tail = Buffer.from(
    '</Value></QueryReceivedDLRResult></QueryReceivedDLRResponse></soap:Body></soap:Envelope>',
  );
  const block = Buffer.alloc(64 * 1024, '<a>1</a>'); // 8,192 elements
  const blocks = Math.ceil(ELEMENTS / 8192);
  let written = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, {
        'content-type': 'text/xml; charset=utf-8',
        'content-length': String(head.length + blocks * block.length + tail.length),
      });
      let i = 0;
      const pump = (): void => {
        while (i <= blocks) {
          const chunk = i === 0 ? head : block;
          i++;
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end(tail);
      };
      res.on('close', () => (i = blocks + 1));
      pump();
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    written: () => written,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Resident and peak resident memory of a process, in MB (Linux). */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string): number =>
    Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

function flows(gatewayUrl: string): unknown[] {
  return [
    { id: 'tab', type: 'tab', label: 'bounded answers' },
    {
      id: 'cfg',
      type: 'smsgw-config',
      baseUrl: gatewayUrl,
      service: 'gateway',
      transport: 'soap11',
      gatewayNamespace: NS,
      credentials: { user: 'u', password: 'secret-pw' },
    },
    // The unrelated endpoint.
    { id: 'pingIn', type: 'http in', z: 'tab', url: '/ping', method: 'get', wires: [['pingOut']] },
    { id: 'pingOut', type: 'http response', z: 'tab', statusCode: '200' },
    // POST /call -> any operation -> { ok } or the error's code and message.
    { id: 'callIn', type: 'http in', z: 'tab', url: '/call', method: 'post', wires: [['call']] },
    {
      id: 'call',
      type: 'smsgw-call',
      z: 'tab',
      gateway: 'cfg',
      service: 'information',
      operation: 'QueryReceivedDLR',
      auth: 'auto',
      wires: [['answered']],
    },
    {
      id: 'answered',
      type: 'function',
      z: 'tab',
      func: 'msg.payload = { ok: true }; return msg;',
      wires: [['callOut']],
    },
    { id: 'catcher', type: 'catch', z: 'tab', scope: ['call'], uncaught: false, wires: [['failed']] },
    {
      id: 'failed',
      type: 'function',
      z: 'tab',
      func: 'msg.payload = { code: msg.error.code, message: msg.error.message }; return msg;',
      wires: [['callOut']],
    },
    { id: 'callOut', type: 'http response', z: 'tab', statusCode: '200' },
  ];
}

describe('generic path in a real Node-RED: the 23 MB answer of tiny elements', function () {
  this.timeout(120_000);
  let work: string;
  let red: Started | undefined;
  let gateway: Awaited<ReturnType<typeof bigAnswerGateway>> | undefined;

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'smsgw-bounded-'));
    gateway = await bigAnswerGateway();
  });
  after(async () => {
    if (red?.alive()) red.child.kill('SIGKILL');
    await gateway?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('fails with PARSE naming maxElements; Node-RED stays up, under +300 MB, and /ping answers within 1 s of its CPU', async () => {
    const userDir = join(work, 'userdir');
    mkdirSync(join(userDir, 'node_modules', '@smsgw'), { recursive: true });
    symlinkSync(ROOT, join(userDir, 'node_modules', '@smsgw', 'node-red-sms-gateway'), 'dir');
    writeFileSync(join(userDir, 'package.json'), '{"name":"bounded","private":true}');
    const port = await freePort();
    writeSettings(userDir, port, { logging: { console: { level: 'warn', metrics: false, audit: false } } });
    const nodeRedDir = dirname(require.resolve('node-red/package.json', { paths: [ROOT] }));
    // The heap the report ran out of.
    red = start(
      process.execPath,
      [
        '--max-old-space-size=1024',
        join(nodeRedDir, 'red.js'),
        '--userDir',
        userDir,
        '--settings',
        join(userDir, 'settings.js'),
      ],
      { cwd: userDir, env: childEnv() },
    );
    const url = `http://127.0.0.1:${port}`;
    await waitForHttp(`${url}/settings`, 60_000, () => red!.alive());
    await deployFlows(url, flows(gateway!.url));
    for (let i = 0; ; i++) {
      const res = await fetch(`${url}/ping`).catch(() => undefined);
      if (res?.ok) break;
      assert.ok(i < 300, 'the flow did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
    const pid = red.child.pid!;
    // The peak from here on (Linux: writing 5 resets VmHWM to the current RSS; where refused, the peak of the
    // start counts too, which only makes the bound stricter).
    try {
      writeFileSync(`/proc/${pid}/clear_refs`, '5');
    } catch {
      // not allowed here
    }
    const atStart = memoryOf(pid).rss;

    // /ping every 100 ms while the call runs, from a process of its own: the test process (a heap grown by the
    // whole suite, the gateway streaming in it) would add its own pauses to what it measures.
    const pinger = spawn(process.execPath, ['-e', PINGER, `${url}/ping`, String(pid)], {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: childEnv(),
    });
    let pingOutput = '';
    pinger.stdout.on('data', (c: Buffer) => (pingOutput += c.toString()));
    const pingerExited = new Promise<void>((resolve) => pinger.once('exit', () => resolve()));
    for (let i = 0; !pingOutput.includes('\n'); i++) {
      assert.ok(i < 300, `the pinger did not start: ${pingOutput}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    let answer: { ok?: boolean; code?: string; message?: string };
    try {
      const res = await fetch(`${url}/call`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ StartDate: '2026-01-01T00:00:00Z', Limit: 5000 }),
        signal: AbortSignal.timeout(90_000),
      });
      answer = (await res.json()) as typeof answer;
      // A few more pings after the answer: nothing left blocking.
      await new Promise((r) => setTimeout(r, 500));
    } catch (e) {
      throw new Error(`POST /call: ${(e as Error).message}\n${red.output().slice(-3000)}`, { cause: e });
    } finally {
      pinger.stdin.end('stop\n');
      await pingerExited;
    }
    // Each answer's wait and the CPU time Node-RED's main thread ran meanwhile.
    const answers = pingOutput
      .trim()
      .split('\n')
      .map((line) => line.split(' ').map(Number))
      .filter((pair) => pair.length === 2 && pair.every((n) => Number.isFinite(n)));
    assert.ok(!pingOutput.includes('error'), `a ping failed: ${pingOutput}`);
    const pings = answers.length;
    const longestPing = Math.max(...answers.map(([ms]) => ms!));
    const mostCpu = Math.max(...answers.map(([, cpu]) => cpu!));
    const memory = memoryOf(pid);
    if (process.env.SMSGW_FIGURES) {
      console.log(
        `      RSS ${atStart.toFixed(0)} MB at start, peak ${memory.peak.toFixed(0)} MB; ${pings} pings, longest ` +
          `${longestPing.toFixed(0)} ms, at most ${mostCpu} ms of Node-RED's CPU (${answers.map((a) => a.join('/')).join(' ')}); ` +
          `the gateway wrote ${(gateway!.written() / MiB).toFixed(1)} MiB`,
      );
    }

    assert.equal(answer.code, 'PARSE', JSON.stringify(answer));
    assert.match(answer.message ?? '', /more than 250,000 elements \(maxElements\)/);
    assert.ok(red.alive(), `Node-RED exited:\n${red.output().slice(-2000)}`);
    assert.ok((await fetch(`${url}/ping`)).ok, 'Node-RED still answers');
    assert.ok(
      memory.peak - atStart < 300,
      `peak RSS ${memory.peak.toFixed(0)} MB, ${atStart.toFixed(0)} MB at start`,
    );
    assert.ok(pings >= 3, `only ${pings} pings`);
    // The wait in Node-RED's CPU time, not the clock's: on a loaded machine Node-RED also waits for a core, which
    // the clock counts (a block the whole read long, as before the limits, is seconds of CPU).
    assert.ok(
      mostCpu < 1000,
      `/ping waited while Node-RED ran up to ${mostCpu} ms (ms/CPU ms: ${answers.map((a) => a.join('/')).join(' ')})`,
    );
    // The read stopped early: most of the 23 MB were never sent.
    assert.ok(gateway!.written() < 16 * MiB, `the gateway wrote ${gateway!.written()} bytes`);
  });
});
