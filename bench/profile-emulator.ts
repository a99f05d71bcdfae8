/**
 * Profiles the emulator under benchmark 5's load: starts it with --cpu-prof, sends SOAP 1.1 SendSMS with
 * autocannon (32 connections), then prints self time per function and per file of the emulator process.
 * Run: npm run build && npx tsx bench/profile-emulator.ts
 *   (SECONDS=5 TOP=40 VARIANT=soap11|soap12|get|post|legacy; BARE=1 for the bare server; PROFILE=<file> to only read one)
 */
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import autocannon from 'autocannon';
import { sendSmsWire, sendTextWire, startEmulatorChild } from './fixtures';
import { ROOT, startChild } from './lib';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const SECONDS = Number(process.env.SECONDS ?? 5);
const TOP = Number(process.env.TOP ?? 40);
const BARE_BODY =
  '<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" ' +
  'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><soap:Body>' +
  '<SendSMSResponse xmlns="http://tempuri.org/"><SendSMSResult><StatusCode>Ok</StatusCode><Value><Status>Ok</Status>' +
  '<JobId>100001</JobId></Value></SendSMSResult></SendSMSResponse></soap:Body></soap:Envelope>';

function report(file: string): void {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  p.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
  const fn = new Map<string, number>();
  const files = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    total += us;
    if (functionName === '(idle)') idle += us;
    const where = url.startsWith('file://') ? relative(ROOT, url.slice(7)) : url || '(native)';
    const key = `${functionName || '(anonymous)'}  ${where}:${lineNumber + 1}`;
    fn.set(key, (fn.get(key) ?? 0) + us);
    files.set(where, (files.get(where) ?? 0) + us);
  }
  const busy = total - idle;
  const show = (title: string, m: Map<string, number>): void => {
    console.log(`\n${title} (% of busy time ${(busy / 1000).toFixed(0)} ms)`);
    for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, TOP))
      console.log(`${((100 * us) / busy).toFixed(1).padStart(5)}%  ${k}`);
  };
  // Inclusive time of each function (a frame counted once per stack, however deep it recurses).
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const keyOf = (id: number): string => {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const where = url.startsWith('file://') ? relative(ROOT, url.slice(7)) : url || '(native)';
    return `${functionName || '(anonymous)'}  ${where}:${lineNumber + 1}`;
  };
  const incl = new Map<string, number>();
  for (const [id, us] of self) {
    const seen = new Set<string>();
    for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
      const k = keyOf(n);
      if (seen.has(k)) continue;
      seen.add(k);
      incl.set(k, (incl.get(k) ?? 0) + us);
    }
  }
  show('self time by function', fn);
  show('self time by file', files);
  show('inclusive time by function', incl);
}

async function main(): Promise<void> {
  if (process.env.PROFILE) return report(process.env.PROFILE);
  const dir = mkdtempSync(join(tmpdir(), 'emu-prof-'));
  // VARIANT: soap11 (benchmark 5), soap12, get, post (typed SendSMS) or legacy (SendText, RPC/encoded).
  const variant = process.env.VARIANT ?? 'soap11';
  const wire =
    variant === 'legacy' ? sendTextWire() : sendSmsWire(variant as 'soap11' | 'soap12' | 'get' | 'post');
  // BARE=1 profiles the bare node:http server of benchmark 5 instead, for comparison.
  const emu = process.env.BARE
    ? await startChild('bare.ts', { body: BARE_BODY, type: 'text/xml; charset=utf-8' }, [
        '--cpu-prof',
        '--cpu-prof-dir',
        dir,
      ])
    : await startEmulatorChild({}, ['--cpu-prof', '--cpu-prof-dir', dir]);
  const c0 = await emu.cpuMs();
  const r = await autocannon({
    url: emu.url + wire.path,
    method: wire.method,
    headers: wire.headers,
    ...(wire.body === undefined ? {} : { body: wire.body }),
    connections: 32,
    duration: SECONDS,
  });
  const c1 = await emu.cpuMs();
  await emu.stop();
  console.log(
    `${Math.round(r.requests.total / SECONDS)} req/s, ${Math.round(((c1 - c0) * 1000) / r.requests.total)} µs CPU/req (profiling on), ${r.non2xx + r.errors} errors`,
  );
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no profile written in ${dir}`);
  console.log(`profile: ${join(dir, file)}`);
  report(join(dir, file));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
