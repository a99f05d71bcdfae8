/**
 * Benchmark 2, decoding: a 5,000-record QueryReceivedDLR SOAP 1.1 response (~2.2 MB) and a 5,000-record
 * GetJobs1 answer of the older service (one delimited string), fed in 64 KiB chunks.
 * Compares our catalogue-directed decoder (plus, for GetJobs1, the record parser) with the bare XML scanner it
 * runs on (no-op handlers, same UTF-8 decoding: the limit), with node-soap's own response path
 * (`wsdl.xmlToObject`, what its client's parseSync calls; for GetJobs1 it yields the string only, unsplit), and
 * with bare saxes (the fastest XML library measured, which the package used before; for reference).
 * Also: the longest synchronous block per write (= the longest event-loop block while the body streams in)
 * and, with --expose-gc, the peak extra heap during the decode.
 * Run: node --expose-gc -r tsx/cjs bench/decode.ts
 */
import { performance } from 'node:perf_hooks';
import { SaxesParser } from 'saxes';
import { WSDL } from 'soap';
import type { TypeRef } from '../src/catalogue/types';
import { catalogue, decode, legacy, scanner as xmlScanner } from './pkg';
import { dlrResponse } from './fixtures';
import { emit, median, printTable, round } from './lib';

const { DEFAULT_NAMESPACES, complexType, enumType, findOperation } = catalogue;
const { createResponseDecoder } = decode;
const { parseLegacyResult } = legacy;
const NS = DEFAULT_NAMESPACES.gateway;
const LEGACY_NS = DEFAULT_NAMESPACES.legacy;
const RECORDS = 5000;
const CHUNK = 64 * 1024;
const ROUNDS = Number(process.env.ROUNDS ?? 15);

function legacyJobsResponse(n: number): string {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const d = `2026-11-${String(10 + (i % 18))} 10:${String(i % 60).padStart(2, '0')}:03`;
    lines.push(
      `${700000 + i};Campaign ${i} — Grüße; part ${i % 7};${(0.09 * (1 + (i % 3))).toFixed(2)};${d}`,
    );
  }
  const text = lines.join('\n').replace(/&/g, '&amp;').replace(/</g, '&lt;');
  return (
    '<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" ' +
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><soap:Body>' +
    `<GetJobs1Response xmlns="${LEGACY_NS}"><GetJobs1Result>${text}\n</GetJobs1Result></GetJobs1Response></soap:Body></soap:Envelope>`
  );
}

/** node-soap's view of GetJobs1: a document/literal operation answering one string. */
function legacyWsdl(): string {
  return `<?xml version="1.0" encoding="utf-8"?>
<wsdl:definitions xmlns:s="http://www.w3.org/2001/XMLSchema" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/" xmlns:tns="${LEGACY_NS}" targetNamespace="${LEGACY_NS}" xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/">
<wsdl:types><s:schema elementFormDefault="qualified" targetNamespace="${LEGACY_NS}">
<s:element name="GetJobs1"><s:complexType><s:sequence><s:element minOccurs="0" maxOccurs="1" name="User" type="s:string" /></s:sequence></s:complexType></s:element>
<s:element name="GetJobs1Response"><s:complexType><s:sequence><s:element minOccurs="0" maxOccurs="1" name="GetJobs1Result" type="s:string" /></s:sequence></s:complexType></s:element>
</s:schema></wsdl:types>
<wsdl:message name="GetJobs1SoapIn"><wsdl:part name="parameters" element="tns:GetJobs1" /></wsdl:message>
<wsdl:message name="GetJobs1SoapOut"><wsdl:part name="parameters" element="tns:GetJobs1Response" /></wsdl:message>
<wsdl:portType name="SMSSendSoap"><wsdl:operation name="GetJobs1"><wsdl:input message="tns:GetJobs1SoapIn" /><wsdl:output message="tns:GetJobs1SoapOut" /></wsdl:operation></wsdl:portType>
<wsdl:binding name="SMSSendSoap" type="tns:SMSSendSoap"><soap:binding transport="http://schemas.xmlsoap.org/soap/http" />
<wsdl:operation name="GetJobs1"><soap:operation soapAction="${LEGACY_NS}GetJobs1" style="document" /><wsdl:input><soap:body use="literal" /></wsdl:input><wsdl:output><soap:body use="literal" /></wsdl:output></wsdl:operation></wsdl:binding>
<wsdl:service name="SMSSend"><wsdl:port name="SMSSendSoap" binding="tns:SMSSendSoap"><soap:address location="http://127.0.0.1:1/soap/send.asmx" /></wsdl:port></wsdl:service>
</wsdl:definitions>`;
}

/** A minimal ASMX-shaped WSDL for node-soap, derived from the catalogue. */
function wsdlFor(): string {
  const xsd = (t: TypeRef): string => {
    if (t.kind === 'primitive') return `s:${t.name}`;
    if (t.kind === 'list') return `tns:ArrayOf${t.itemElement}`;
    return `tns:${t.name}`;
  };
  const complexes = new Set<string>();
  const enums = new Set<string>();
  const lists = new Map<string, TypeRef>();
  const visit = (t: TypeRef): void => {
    if (t.kind === 'enum') enums.add(t.name);
    else if (t.kind === 'list') {
      lists.set(t.itemElement, t.item);
      visit(t.item);
    } else if (t.kind === 'complex' && !complexes.has(t.name)) {
      complexes.add(t.name);
      complexType(t.name).fields.forEach((f) => visit(f.type));
    }
  };
  visit({ kind: 'complex', name: 'SOAPResponseOfListOfSMSReport' });
  const el = (name: string, t: TypeRef): string =>
    `<s:element minOccurs="0" maxOccurs="1" name="${name}" type="${xsd(t)}" />`;
  const types = [
    ...[...complexes].map(
      (c) =>
        `<s:complexType name="${c}"><s:sequence>${complexType(c)
          .fields.map((f) => el(f.name, f.type))
          .join('')}</s:sequence></s:complexType>`,
    ),
    ...[...lists].map(
      ([item, t]) =>
        `<s:complexType name="ArrayOf${item}"><s:sequence><s:element minOccurs="0" maxOccurs="unbounded" name="${item}" nillable="true" type="${xsd(t)}" /></s:sequence></s:complexType>`,
    ),
    ...[...enums].map(
      (e) =>
        `<s:simpleType name="${e}"><s:restriction base="s:string">${enumType(e)
          .values.map((v) => `<s:enumeration value="${v}" />`)
          .join('')}</s:restriction></s:simpleType>`,
    ),
  ].join('');
  return `<?xml version="1.0" encoding="utf-8"?>
<wsdl:definitions xmlns:s="http://www.w3.org/2001/XMLSchema" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/" xmlns:tns="${NS}" targetNamespace="${NS}" xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/">
<wsdl:types><s:schema elementFormDefault="qualified" targetNamespace="${NS}">
<s:element name="QueryReceivedDLR"><s:complexType><s:sequence><s:element minOccurs="0" maxOccurs="1" name="User" type="s:string" /><s:element minOccurs="0" maxOccurs="1" name="Password" type="s:string" /><s:element minOccurs="1" maxOccurs="1" name="StartDate" type="s:dateTime" /><s:element minOccurs="1" maxOccurs="1" name="Limit" type="s:int" /></s:sequence></s:complexType></s:element>
<s:element name="QueryReceivedDLRResponse"><s:complexType><s:sequence><s:element minOccurs="0" maxOccurs="1" name="QueryReceivedDLRResult" type="tns:SOAPResponseOfListOfSMSReport" /></s:sequence></s:complexType></s:element>
${types}
</s:schema></wsdl:types>
<wsdl:message name="QueryReceivedDLRSoapIn"><wsdl:part name="parameters" element="tns:QueryReceivedDLR" /></wsdl:message>
<wsdl:message name="QueryReceivedDLRSoapOut"><wsdl:part name="parameters" element="tns:QueryReceivedDLRResponse" /></wsdl:message>
<wsdl:portType name="InformationSoap"><wsdl:operation name="QueryReceivedDLR"><wsdl:input message="tns:QueryReceivedDLRSoapIn" /><wsdl:output message="tns:QueryReceivedDLRSoapOut" /></wsdl:operation></wsdl:portType>
<wsdl:binding name="InformationSoap" type="tns:InformationSoap"><soap:binding transport="http://schemas.xmlsoap.org/soap/http" />
<wsdl:operation name="QueryReceivedDLR"><soap:operation soapAction="${NS}QueryReceivedDLR" style="document" /><wsdl:input><soap:body use="literal" /></wsdl:input><wsdl:output><soap:body use="literal" /></wsdl:output></wsdl:operation></wsdl:binding>
<wsdl:service name="Information"><wsdl:port name="InformationSoap" binding="tns:InformationSoap"><soap:address location="http://127.0.0.1:1/gateway/Information.asmx" /></wsdl:port></wsdl:service>
</wsdl:definitions>`;
}

/**
 * Wall time and CPU time (process.cpuUsage) of a run and of its longest synchronous block. The machine this
 * runs on is shared: wall time includes time the process was not scheduled at all, CPU time does not.
 */
interface Run {
  ms: number;
  cpuMs: number;
  maxBlockMs: number;
  maxBlockCpuMs: number;
}

class Clock {
  private readonly t0 = performance.now();
  private readonly c0 = process.cpuUsage();
  maxBlockMs = 0;
  maxBlockCpuMs = 0;
  private bt = 0;
  private bc = process.cpuUsage();
  blockStart(): void {
    this.bt = performance.now();
    this.bc = process.cpuUsage();
  }
  blockEnd(): void {
    this.maxBlockMs = Math.max(this.maxBlockMs, performance.now() - this.bt);
    const c = process.cpuUsage(this.bc);
    this.maxBlockCpuMs = Math.max(this.maxBlockCpuMs, (c.user + c.system) / 1000);
  }
  done(): Run {
    const c = process.cpuUsage(this.c0);
    return {
      ms: performance.now() - this.t0,
      cpuMs: (c.user + c.system) / 1000,
      maxBlockMs: this.maxBlockMs,
      maxBlockCpuMs: this.maxBlockCpuMs,
    };
  }
}

function chunksOf(buf: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < buf.length; i += CHUNK) out.push(buf.subarray(i, i + CHUNK));
  return out;
}

const dlrOp = findOperation('information', 'QueryReceivedDLR')!;
const jobsOp = findOperation('legacy', 'GetJobs1')!;

/**
 * Our path for one case: the streaming decoder, then (GetJobs1) the record parser, as the client does.
 * 'string' stops after the XML layer (GetJobs1's one string), like node-soap's own answer.
 */
function oursFor(
  kind: 'dlr' | 'jobs' | 'string',
): (chunks: Buffer[], clock: Clock, sample?: () => void) => unknown {
  const op = kind === 'dlr' ? dlrOp : jobsOp;
  return (chunks, clock, sample) => {
    const d = createResponseDecoder(op, { transport: 'soap11' });
    for (const c of chunks) {
      clock.blockStart();
      d.write(c);
      clock.blockEnd();
      sample?.();
    }
    clock.blockStart();
    let result = d.end();
    if (kind === 'jobs') result = parseLegacyResult('jobs', result as string);
    clock.blockEnd();
    return result;
  };
}

/** A bare tokenizer's run: the chunks decoded as our decoder does and written, one timed block each. */
function feed(
  chunks: Buffer[],
  clock: Clock,
  sample: (() => void) | undefined,
  write: (s: string) => void,
): void {
  const utf8 = new TextDecoder('utf-8');
  for (const c of chunks) {
    clock.blockStart();
    write(utf8.decode(c, { stream: true }));
    clock.blockEnd();
    sample?.();
  }
}

/** The package's XML scanner with no-op handlers: the tokenizer our decoder runs on (the limit). */
function scanner(chunks: Buffer[], clock: Clock, sample?: () => void): unknown {
  let n = 0;
  const p = new xmlScanner.XmlScanner({
    open: () => n++,
    close: () => n++,
    text: () => n++,
    cdata: () => n++,
  });
  feed(chunks, clock, sample, (s) => p.write(s));
  p.end();
  if (n === 0) throw new Error('the scanner saw nothing');
  return n;
}

/** saxes, the fastest XML library measured (the package used it before its own scanner). */
function saxes(chunks: Buffer[], clock: Clock, sample?: () => void): unknown {
  const p = new SaxesParser<{ xmlns: false; position: false }>({ xmlns: false, position: false });
  let n = 0;
  p.on('opentag', () => n++);
  p.on('text', () => n++);
  p.on('closetag', () => n++);
  feed(chunks, clock, sample, (s) => p.write(s));
  p.close();
  if (n === 0) throw new Error('saxes saw nothing');
  return n;
}

function soapFor(wsdl: WSDL, body: string, records = false): (chunks: Buffer[], clock: Clock) => unknown {
  // node-soap needs the whole body as one string: its parse is a single synchronous block.
  return (_chunks, clock) => {
    clock.blockStart();
    const r = wsdl.xmlToObject(body) as { Body: { GetJobs1Response: { GetJobs1Result: string } } };
    // What a soap user must add to get records: the same record parser as ours.
    const out = records ? parseLegacyResult('jobs', r.Body.GetJobs1Response.GetJobs1Result) : r;
    clock.blockEnd();
    return out;
  };
}

type Decode = (chunks: Buffer[], clock: Clock, sample?: () => void) => unknown;

async function loadWsdl(text: string, url: string): Promise<WSDL> {
  const wsdl = new WSDL(text, url, {});
  await new Promise<void>((resolve, reject) =>
    wsdl.onReady((err: unknown) => (err ? reject(err) : resolve())),
  );
  return wsdl;
}

const gc = (globalThis as { gc?: () => void }).gc;

/**
 * Peak live heap above the level before the call, the result still held (needs --expose-gc): a full GC after
 * every chunk, so garbage the next scavenge would free is not counted, only what the decode keeps alive.
 */
function peakHeap(fn: Decode, chunks: Buffer[]): number | null {
  if (!gc) return null;
  gc();
  gc();
  const base = process.memoryUsage().heapUsed;
  let peak = 0;
  const sample = (): void => {
    gc();
    peak = Math.max(peak, process.memoryUsage().heapUsed - base);
  };
  const result = fn(chunks, new Clock(), sample);
  sample();
  if (result === undefined) throw new Error('no result');
  return peak;
}

interface CaseResult {
  case: string;
  bytes: number;
  records: number;
  rows: Row[];
  ratios: Record<string, number>;
  targets: Record<string, boolean>;
}

type Row = Record<string, string | number | null>;

async function runCase(kind: 'dlr' | 'jobs'): Promise<CaseResult> {
  const xml = kind === 'dlr' ? dlrResponse(RECORDS) : legacyJobsResponse(RECORDS);
  const buf = Buffer.from(xml, 'utf8');
  const chunks = chunksOf(buf);
  const wsdl =
    kind === 'dlr'
      ? await loadWsdl(wsdlFor(), 'http://127.0.0.1:1/gateway/Information.asmx?WSDL')
      : await loadWsdl(legacyWsdl(), 'http://127.0.0.1:1/soap/send.asmx?WSDL');
  const fns: Record<string, Decode> = { ours: oursFor(kind), scanner, soap: soapFor(wsdl, xml), saxes };
  if (kind === 'jobs') {
    fns['soap+records'] = soapFor(wsdl, xml, true);
    fns['ours (string only)'] = oursFor('string');
  }
  const names = Object.keys(fns);

  // Sanity: our decoder and node-soap both see every record.
  const ours = fns.ours!(chunks, new Clock()) as { Value?: unknown[]; records?: unknown[] };
  const count = (kind === 'dlr' ? ours.Value : ours.records)?.length;
  const theirs = fns.soap!(chunks, new Clock()) as { Body: Record<string, Record<string, unknown>> };
  const theirCount =
    kind === 'dlr'
      ? (theirs.Body.QueryReceivedDLRResponse!.QueryReceivedDLRResult as { Value: { SMSReport: unknown[] } })
          .Value.SMSReport.length
      : String(theirs.Body.GetJobs1Response!.GetJobs1Result).trim().split('\n').length;
  if (count !== RECORDS || theirCount !== RECORDS)
    throw new Error(`${kind}: record counts ${count}/${theirCount}`);

  const runs: Record<string, Run[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < ROUNDS; r++) {
    // Interleaved, so load on the (shared) machine hits all alike.
    for (const name of names) {
      const clock = new Clock();
      fns[name]!(chunks, clock);
      runs[name]!.push(clock.done());
    }
  }
  const heap: Record<string, number | null> = {};
  for (const name of names) heap[name] = peakHeap(fns[name]!, chunks);
  const st = (name: string) => {
    const rs = runs[name]!;
    return {
      decoder: name,
      'best ms': round(Math.min(...rs.map((r) => r.ms))),
      'median ms': round(median(rs.map((r) => r.ms))),
      'median CPU ms': round(median(rs.map((r) => r.cpuMs))),
      'max block ms (median)': round(median(rs.map((r) => r.maxBlockMs))),
      'max block CPU ms': round(median(rs.map((r) => r.maxBlockCpuMs))),
      'max block CPU ms (worst run)': round(Math.max(...rs.map((r) => r.maxBlockCpuMs))),
      'peak heap MB': heap[name] === null ? null : round(heap[name]! / 1e6),
      'heap / body': heap[name] === null ? null : round(heap[name]! / buf.length),
    };
  };
  const rows = names.map(st);
  const row = (name: string): Row => rows.find((r) => r.decoder === name) as Row;
  const o = row('ours');
  const s = row('scanner');
  const p = kind === 'jobs' ? row('soap+records') : row('soap');
  const n = (r: Row, k: string): number => r[k] as number;
  const ratios = {
    speedupVsSoapCpu: round(n(p, 'median CPU ms') / n(o, 'median CPU ms')),
    speedupVsSoapBestWall: round(n(p, 'best ms') / n(o, 'best ms')),
    ratioToBareTokenizerCpu: round(n(o, 'median CPU ms') / n(s, 'median CPU ms')),
    ratioToBareTokenizerBestWall: round(n(o, 'best ms') / n(s, 'best ms')),
    ratioToBareSaxesCpu: round(n(o, 'median CPU ms') / n(row('saxes'), 'median CPU ms')),
    // GetJobs1's XML layer alone (one text node), against node-soap's string and the bare scanner.
    ...(kind === 'jobs'
      ? {
          stringOnlyVsSoapCpu: round(
            n(row('soap'), 'median CPU ms') / n(row('ours (string only)'), 'median CPU ms'),
          ),
          stringOnlyToBareTokenizerCpu: round(
            n(row('ours (string only)'), 'median CPU ms') / n(s, 'median CPU ms'),
          ),
        }
      : {}),
    // Median over the rounds of each run's longest block: one GC pause in one run is not the decoder's block.
    maxBlockCpuMs: n(o, 'max block CPU ms'),
    peakHeapPerBodyByte: o['heap / body'] as number,
  };
  return {
    case: kind === 'dlr' ? 'QueryReceivedDLR (typed)' : 'GetJobs1 (older service, string)',
    bytes: buf.length,
    records: RECORDS,
    rows,
    ratios,
    targets: {
      [`ours >= 5x faster than ${p.decoder}`]: ratios.speedupVsSoapCpu >= 5,
      'ours <= 2x bare tokenizer': ratios.ratioToBareTokenizerCpu <= 2,
      'longest block <= 20 ms': ratios.maxBlockCpuMs <= 20,
      'peak heap <= 4x body': ratios.peakHeapPerBodyByte === null || ratios.peakHeapPerBodyByte <= 4,
    },
  };
}

async function main(): Promise<void> {
  const cases = [await runCase('dlr'), await runCase('jobs')];
  for (const c of cases) {
    printTable(
      `Decode ${c.case}: ${c.records} records, ${(c.bytes / 1e6).toFixed(2)} MB in ${CHUNK / 1024} KiB chunks, ${ROUNDS} rounds`,
      c.rows,
    );
    console.log(`ratios ${JSON.stringify(c.ratios)}\ntargets ${JSON.stringify(c.targets)}`);
  }
  emit('decode', { chunkBytes: CHUNK, rounds: ROUNDS, heapMeasured: gc !== undefined, cases });
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
