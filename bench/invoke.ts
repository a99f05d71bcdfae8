/**
 * Benchmark 8, the generic path: `client.invoke()` (xmlbuilder2 + fast-xml-parser) against the typed path
 * (precompiled envelope + the catalogue-directed scanner) for the same calls.
 *   - Throughput: SendSMS over the four transports, 32 calls in flight, against the fixed-response stub of
 *     benchmark 1 (own process, answers the emulator's bytes, parses nothing): the client's own cost per call.
 *   - Decoding: the 5,000-record QueryReceivedDLR answer (~2.2 MB) of benchmark 2, typed decoder (64 KiB chunks)
 *     vs generic decoder (fast-xml-parser reads the whole answer at its end): CPU and the longest block.
 * invoke() is expected to be slower; this says by how much. Run alone: npx tsx bench/invoke.ts
 * (SECONDS, ROUNDS, CONCURRENCY, DECODE_ROUNDS)
 */
import { performance } from 'node:perf_hooks';
import type { Transport } from '../src/client';
import { cannedResponses } from './client';
import { invokeTableRows } from './report';
import { SEND_PARAMS, dlrResponse, startEmulatorChild } from './fixtures';
import { catalogue, client, decode, generic } from './pkg';
import {
  PASSWORD,
  USER,
  emit,
  measureRate,
  median,
  printTable,
  round,
  startChild,
  type Measured,
} from './lib';

const SECONDS = Number(process.env.SECONDS ?? 1.5);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 32);
const DECODE_ROUNDS = Number(process.env.DECODE_ROUNDS ?? 9);
const RECORDS = 5000;
const CHUNK = 64 * 1024;
const TRANSPORTS = ['soap11', 'soap12', 'get', 'post'] as const satisfies readonly Transport[];
const { DEFAULT_NAMESPACES, findOperation } = catalogue;

/** SendSMS's parameters as a generic caller writes them (lists as wrapper + items over SOAP, every form key). */
function genericSendParams(transport: Transport): Record<string, unknown> {
  const soap = transport === 'soap11' || transport === 'soap12';
  return {
    ...SEND_PARAMS,
    Recipient: soap ? { string: SEND_PARAMS.Recipient } : SEND_PARAMS.Recipient,
    SendDate: soap ? null : '0001-01-01T00:00:00',
    ...(soap ? {} : { JobPriority: 0 }),
  };
}

export interface InvokeRow {
  transport: Transport;
  typedRate: number;
  invokeRate: number;
  typedCpuUs: number;
  invokeCpuUs: number;
  /** invoke() calls/s over typed calls/s. */
  rateRatio: number;
  /** invoke() client CPU per call over typed. */
  cpuRatio: number;
}

async function throughput(): Promise<InvokeRow[]> {
  const emulator = await startEmulatorChild({ requestLogSize: 1 });
  const stub = await startChild('stub.ts', { responses: await cannedResponses(emulator.url) });
  await emulator.stop();
  const closers: (() => Promise<void>)[] = [];
  try {
    const variants: [string, Transport, () => Promise<unknown>][] = [];
    for (const transport of TRANSPORTS) {
      const c = new client.GatewayClient({
        baseUrl: stub.url,
        user: USER,
        password: PASSWORD,
        transport,
        maxConnections: CONCURRENCY,
        gatewayNamespace: DEFAULT_NAMESPACES.gateway,
        // The typed send's reference and safe retries are not what is compared here.
        reference: false,
        safeRetries: false,
      });
      closers.push(() => c.close());
      const params = genericSendParams(transport);
      const typed = await c.send.sendSms(SEND_PARAMS);
      const invoked = (await c.invoke('send', 'SendSMS', params)) as { Value: { JobId: string } };
      if (String(typed.JobId) !== invoked.Value.JobId) {
        throw new Error(`${transport}: typed ${JSON.stringify(typed)} vs invoke ${JSON.stringify(invoked)}`);
      }
      variants.push([`typed ${transport}`, transport, () => c.send.sendSms(SEND_PARAMS)]);
      variants.push([`invoke ${transport}`, transport, () => c.invoke('send', 'SendSMS', params)]);
    }
    const runs = new Map<string, Measured[]>(variants.map(([n]) => [n, []]));
    for (const [, , op] of variants) await measureRate(op, { seconds: 0.5, concurrency: CONCURRENCY }); // JIT
    for (let r = 0; r < ROUNDS; r++) {
      // Interleaved, each round starting one variant later (the machine is shared and noisy).
      for (let i = 0; i < variants.length; i++) {
        const [name, , op] = variants[(i + r) % variants.length]!;
        runs.get(name)!.push(await measureRate(op, { seconds: SECONDS, concurrency: CONCURRENCY }));
      }
    }
    const med = (name: string, k: keyof Measured): number => median(runs.get(name)!.map((m) => m[k]));
    return TRANSPORTS.map((transport) => {
      const typedRate = med(`typed ${transport}`, 'rate');
      const invokeRate = med(`invoke ${transport}`, 'rate');
      const typedCpuUs = med(`typed ${transport}`, 'cpuUs');
      const invokeCpuUs = med(`invoke ${transport}`, 'cpuUs');
      return {
        transport,
        typedRate: Math.round(typedRate),
        invokeRate: Math.round(invokeRate),
        typedCpuUs: Math.round(typedCpuUs),
        invokeCpuUs: Math.round(invokeCpuUs),
        rateRatio: round(invokeRate / typedRate),
        cpuRatio: round(invokeCpuUs / typedCpuUs),
      };
    });
  } finally {
    await Promise.all(closers.map((c) => c()));
    await stub.stop();
  }
}

export interface DecodeFigures {
  records: number;
  bytes: number;
  typedMs: number;
  invokeMs: number;
  typedMaxBlockMs: number;
  invokeMaxBlockMs: number;
  ratio: number;
}

/** One decode in chunks: total CPU ms and the longest single write/end (the longest event-loop block). */
function timeDecode(
  make: () => { write(c: Uint8Array): void; end(): unknown },
  body: Buffer,
): [number, number] {
  const d = make();
  let longest = 0;
  const t0 = performance.now();
  for (let i = 0; i < body.length; i += CHUNK) {
    const s = performance.now();
    d.write(body.subarray(i, i + CHUNK));
    longest = Math.max(longest, performance.now() - s);
  }
  const s = performance.now();
  d.end();
  longest = Math.max(longest, performance.now() - s);
  return [performance.now() - t0, longest];
}

function decoding(): DecodeFigures {
  const body = Buffer.from(dlrResponse(RECORDS), 'utf8');
  const op = findOperation('information', 'QueryReceivedDLR')!;
  const typed = (): ReturnType<typeof decode.createResponseDecoder> =>
    decode.createResponseDecoder(op, { transport: 'soap11' });
  const untyped = (): ReturnType<typeof generic.createGenericDecoder> =>
    generic.createGenericDecoder({ transport: 'soap11', operation: 'QueryReceivedDLR' });
  const t: [number, number][] = [];
  const g: [number, number][] = [];
  timeDecode(typed, body);
  timeDecode(untyped, body);
  for (let r = 0; r < DECODE_ROUNDS; r++) {
    t.push(timeDecode(typed, body));
    g.push(timeDecode(untyped, body));
  }
  const typedMs = median(t.map((x) => x[0]));
  const invokeMs = median(g.map((x) => x[0]));
  return {
    records: RECORDS,
    bytes: body.length,
    typedMs: round(typedMs, 1),
    invokeMs: round(invokeMs, 1),
    typedMaxBlockMs: round(median(t.map((x) => x[1])), 1),
    invokeMaxBlockMs: round(median(g.map((x) => x[1])), 1),
    ratio: round(invokeMs / typedMs, 1),
  };
}

async function main(): Promise<void> {
  const decodeFigures = decoding();
  printTable(`Decoding QueryReceivedDLR, ${RECORDS} records, median of ${DECODE_ROUNDS}`, [
    {
      decoder: 'typed (scanner, streamed)',
      ms: decodeFigures.typedMs,
      'longest block ms': decodeFigures.typedMaxBlockMs,
    },
    {
      decoder: 'invoke (fast-xml-parser)',
      ms: decodeFigures.invokeMs,
      'longest block ms': decodeFigures.invokeMaxBlockMs,
    },
  ]);
  const rows = await throughput();
  printTable(
    `invoke() vs typed SendSMS against the stub, ${CONCURRENCY} in flight, median of ${ROUNDS} rounds of ${SECONDS} s`,
    invokeTableRows(rows),
  );
  emit('invoke', { concurrency: CONCURRENCY, seconds: SECONDS, rounds: ROUNDS, rows, decode: decodeFigures });
}

if (require.main === module) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
