/**
 * Decoding benchmark: a 5,000-record QueryReceivedDLR SOAP 1.1 response (~2.2 MB), fed in 64 KiB chunks.
 * Compares our catalogue-directed decoder with the bare saxes tokenizer (same options, no-op handlers, same
 * UTF-8 decoding) and node-soap's own response path (`wsdl.xmlToObject`, what its client's parseSync calls).
 * Run: npx tsx bench/decode.ts
 */
import { performance } from 'node:perf_hooks';
import { SaxesParser } from 'saxes';
import { WSDL } from 'soap';
import { DEFAULT_NAMESPACES, complexType, enumType, findOperation } from '../src/catalogue';
import type { TypeRef } from '../src/catalogue/types';
import { createResponseDecoder } from '../src/soap/decode';

const NS = DEFAULT_NAMESPACES.gateway;
const RECORDS = 5000;
const CHUNK = 64 * 1024;
const ROUNDS = Number(process.env.ROUNDS ?? 20);

function response(n: number): string {
  const parts: string[] = [
    '<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" ',
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><soap:Body>',
    `<QueryReceivedDLRResponse xmlns="${NS}"><QueryReceivedDLRResult><StatusCode>Ok</StatusCode><Value>`,
  ];
  for (let i = 0; i < n; i++) {
    const done =
      i % 7 === 0
        ? '0001-01-01T00:00:00'
        : `2026-11-${String(10 + (i % 18))}T10:${String(i % 60).padStart(2, '0')}:03.1234567+01:00`;
    parts.push(
      `<SMSReport><Id>${100000 + i}</Id><Recipient>+4917${String(10000000 + i * 7)}</Recipient><JobId>${5000 + (i >> 3)}</JobId>` +
        `<Status>${i % 5 ? 'Delivered' : 'Buffered &amp; retrying'}</Status><Date>2026-11-22T09:${String(i % 60).padStart(2, '0')}:00.25Z</Date>` +
        `<MsgCode>${i % 3}</MsgCode><MsgText>Delivered ${i}; T-Mobile DE, 1/1</MsgText>` +
        `<DoneDate>${done}</DoneDate><DoneDateTimeZoneOffset>60</DoneDateTimeZoneOffset><Sequence>${i % 4}</Sequence>` +
        `<Caption>Campaign Nov/${i % 10} — Grüße</Caption><CreateDate>2026-11-22T08:00:00</CreateDate></SMSReport>`,
    );
  }
  parts.push('</Value></QueryReceivedDLRResult></QueryReceivedDLRResponse></soap:Body></soap:Envelope>');
  return parts.join('');
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

const op = findOperation('information', 'QueryReceivedDLR')!;

function runOurs(chunks: Buffer[]): Run & { result: unknown } {
  const clock = new Clock();
  const d = createResponseDecoder(op, { transport: 'soap11' });
  for (const c of chunks) {
    clock.blockStart();
    d.write(c);
    clock.blockEnd();
  }
  clock.blockStart();
  const result = d.end();
  clock.blockEnd();
  return { ...clock.done(), result };
}

function runSaxes(chunks: Buffer[]): Run {
  const clock = new Clock();
  const p = new SaxesParser<{ xmlns: false; position: false }>({ xmlns: false, position: false });
  const utf8 = new TextDecoder('utf-8');
  let n = 0;
  p.on('opentag', () => n++);
  p.on('text', () => n++);
  p.on('closetag', () => n++);
  for (const c of chunks) {
    clock.blockStart();
    p.write(utf8.decode(c, { stream: true }));
    clock.blockEnd();
  }
  p.close();
  if (n === 0) throw new Error('saxes saw nothing');
  return clock.done();
}

function runSoap(wsdl: WSDL, body: string): Run & { result: unknown } {
  const clock = new Clock();
  // node-soap needs the whole body as one string: its parse is a single synchronous block.
  clock.blockStart();
  const result = wsdl.xmlToObject(body);
  clock.blockEnd();
  return { ...clock.done(), result };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

async function main(): Promise<void> {
  const xml = response(RECORDS);
  const buf = Buffer.from(xml, 'utf8');
  const chunks = chunksOf(buf);
  const wsdl = new WSDL(wsdlFor(), 'http://127.0.0.1:1/gateway/Information.asmx?WSDL', {});
  await new Promise<void>((resolve, reject) =>
    wsdl.onReady((err: unknown) => (err ? reject(err) : resolve())),
  );

  // Sanity: both decoders see 5,000 records.
  const ours = runOurs(chunks).result as { Value: Array<{ Id: number; Date: Date }> };
  const theirs = runSoap(wsdl, xml).result as {
    Body: { QueryReceivedDLRResponse: { QueryReceivedDLRResult: { Value: { SMSReport: unknown[] } } } };
  };
  const theirCount = theirs.Body.QueryReceivedDLRResponse.QueryReceivedDLRResult.Value.SMSReport.length;
  if (process.env.SHOW) {
    console.log(
      ours.Value[1],
      theirs.Body.QueryReceivedDLRResponse.QueryReceivedDLRResult.Value.SMSReport[1],
    );
  }
  if (ours.Value.length !== RECORDS || theirCount !== RECORDS)
    throw new Error(`record counts ${ours.Value.length}/${theirCount}`);

  const res: Record<string, Run[]> = { ours: [], saxes: [], soap: [] };
  for (let r = 0; r < ROUNDS; r++) {
    // Interleaved, so load on the (shared) machine hits all three alike. No forced gc() between runs: on V8 it
    // made later runs of the same code several times slower.
    res.saxes!.push(runSaxes(chunks));
    res.ours!.push(runOurs(chunks));
    res.soap!.push(runSoap(wsdl, xml));
  }
  const stats = (name: string) => {
    const runs = res[name]!;
    return {
      name,
      minMs: +Math.min(...runs.map((r) => r.ms)).toFixed(2),
      medianMs: +median(runs.map((r) => r.ms)).toFixed(2),
      medianCpuMs: +median(runs.map((r) => r.cpuMs)).toFixed(2),
      maxBlockMs: +Math.max(...runs.map((r) => r.maxBlockMs)).toFixed(2),
      maxBlockCpuMs: +Math.max(...runs.map((r) => r.maxBlockCpuMs)).toFixed(2),
    };
  };
  const rows = ['ours', 'saxes', 'soap'].map(stats);
  const [o, s, p] = rows as [(typeof rows)[0], (typeof rows)[0], (typeof rows)[0]];
  const summary = {
    bytes: buf.length,
    records: RECORDS,
    chunkBytes: CHUNK,
    rounds: ROUNDS,
    rows,
    // Targets use the best wall time of N interleaved rounds: on a shared machine medians mostly measure the
    // neighbours, and process CPU time also counts V8's parallel GC helper threads. Both are printed too.
    speedupVsSoap: +(p.minMs / o.minMs).toFixed(2),
    ratioToBareSaxes: +(o.minMs / s.minMs).toFixed(2),
    speedupVsSoapCpuMedian: +(p.medianCpuMs / o.medianCpuMs).toFixed(2),
    ratioToBareSaxesCpuMedian: +(o.medianCpuMs / s.medianCpuMs).toFixed(2),
    targets: {
      'speedupVsSoap >= 4': p.minMs / o.minMs >= 4,
      'ratioToBareSaxes <= 2': o.minMs / s.minMs <= 2,
      'maxBlockCpuMs <= 20': o.maxBlockCpuMs <= 20,
    },
  };
  console.log(
    `QueryReceivedDLR, ${RECORDS} records, ${(buf.length / 1e6).toFixed(2)} MB, ${CHUNK / 1024} KiB chunks, ${ROUNDS} rounds`,
  );
  console.log('decoder   best ms  median ms  median cpu ms  max block ms  max block cpu ms');
  for (const r of rows) {
    console.log(
      `${r.name.padEnd(8)} ${String(r.minMs).padStart(8)} ${String(r.medianMs).padStart(10)} ${String(r.medianCpuMs).padStart(14)} ${String(r.maxBlockMs).padStart(13)} ${String(r.maxBlockCpuMs).padStart(17)}`,
    );
  }
  console.log(
    `ours vs soap: ${summary.speedupVsSoap}x faster (best wall), ${summary.speedupVsSoapCpuMedian}x (cpu median); ` +
      `ours / bare saxes: ${summary.ratioToBareSaxes}x (best wall), ${summary.ratioToBareSaxesCpuMedian}x (cpu median)`,
  );
  console.log(JSON.stringify(summary));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
