/**
 * Benchmark 3, envelope building: 100,000 SendSMS SOAP 1.1 requests with 10 recipients through buildRequest (validation,
 * coercion, escaping, headers) against a hand-written template string with escaping and nothing else.
 * Run: npx tsx bench/envelope.ts
 */
import { performance } from 'node:perf_hooks';
import { catalogue, escape, request, values } from './pkg';
import { emit } from './lib';

const { DEFAULT_NAMESPACES, findOperation } = catalogue;
const { escapeText } = escape;
const { buildRequest } = request;
const { formatDateTime } = values;
const N = Number(process.env.N ?? 100_000);
const ROUNDS = Number(process.env.ROUNDS ?? 7);
const NS = DEFAULT_NAMESPACES.gateway;
const op = findOperation('send', 'SendSMS')!;

interface Params {
  User: string;
  Password: string;
  Caption: string;
  Sender: string;
  Recipient: string[];
  SMSText: string;
  SmsTyp: string;
  SendDate: Date;
}

// A pool of distinct inputs so neither side can cache a result; some need escaping, most do not.
const pool: Params[] = Array.from({ length: 64 }, (_, i) => ({
  User: `user${i}`,
  Password: i % 4 ? `pw-${i}` : `p&ss<${i}>`,
  Caption: `Campaign ${i} — Grüße`,
  Sender: 'ACME',
  Recipient: Array.from({ length: 10 }, (_, j) => `+49170${String(1000000 + i * 10 + j)}`),
  SMSText: i % 3 ? `Hello customer ${i}, your code is ${1000 + i}.` : `Tom & Jerry <${i}> say "hi" 👋`,
  SmsTyp: 'Standard',
  SendDate: new Date(Date.UTC(2026, 10, 22, 10, i % 60, 0)),
}));

function plain(p: Params): string {
  let recipients = '';
  for (const r of p.Recipient) recipients += `<string>${escapeText(r)}</string>`;
  return `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><soap:Body><SendSMS xmlns="${NS}"><User>${escapeText(p.User)}</User><Password>${escapeText(p.Password)}</Password><Caption>${escapeText(p.Caption)}</Caption><Sender>${escapeText(p.Sender)}</Sender><Recipient>${recipients}</Recipient><SMSText>${escapeText(p.SMSText)}</SMSText><SmsTyp>${escapeText(p.SmsTyp)}</SmsTyp><SendDate>${formatDateTime(p.SendDate)}</SendDate></SendSMS></soap:Body></soap:Envelope>`;
}

const opts = { transport: 'soap11' as const, namespace: NS, path: '/gateway/Send.asmx' };
const ours = (p: Params): string => buildRequest(op, p as unknown as Record<string, unknown>, opts).body!;

function time(fn: (p: Params) => string): number {
  let bytes = 0;
  const t0 = performance.now();
  for (let i = 0; i < N; i++) bytes += fn(pool[i & 63]!).length;
  const ms = performance.now() - t0;
  if (bytes === 0) throw new Error('nothing built');
  return ms;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

for (const p of pool) if (ours(p) !== plain(p)) throw new Error(`bodies differ:\n${ours(p)}\n${plain(p)}`);
time(ours); // warm-up
time(plain);
const a: number[] = [];
const b: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  a.push(time(ours));
  b.push(time(plain));
}
const summary = {
  envelopes: N,
  recipients: 10,
  rounds: ROUNDS,
  oursMs: +median(a).toFixed(1),
  plainTemplateMs: +median(b).toFixed(1),
  ratio: +(median(a) / median(b)).toFixed(2),
  usPerEnvelope: +((median(a) * 1000) / N).toFixed(2),
  target: { 'ratio <= 2': median(a) / median(b) <= 2 },
};
console.log(`SendSMS envelope, 10 recipients, ${N} per round, median of ${ROUNDS}`);
console.log('builder            median ms   µs/envelope');
console.log(`buildRequest       ${String(summary.oursMs).padStart(9)}   ${summary.usPerEnvelope}`);
console.log(
  `plain template     ${String(summary.plainTemplateMs).padStart(9)}   ${((median(b) * 1000) / N).toFixed(2)}`,
);
console.log(`ratio: ${summary.ratio}x`);
emit('envelope', summary);
