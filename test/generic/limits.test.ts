/**
 * Bounded answers on the generic path: element count, depth, text size and decoded size are checked
 * while the answer is read, and the first one passed fails the call with PARSE naming it. Before, an 11 MB answer
 * became +1.1 GiB and ended in "Maximum call stack size exceeded", and a 23 MB answer of tiny elements ran a
 * 1 GiB heap out of memory. test/generic/nodered-bounded.test.ts runs the 23 MB answer through a real Node-RED.
 */
import assert from 'node:assert/strict';
import { dlrResponse } from '../../bench/fixtures';
import { GatewayClient } from '../../src/client';
import { isGatewayError } from '../../src/errors';
import {
  createGenericDecoder,
  DEFAULT_INVOKE_LIMITS,
  resolveInvokeLimits,
  type InvokeLimits,
} from '../../src/generic';
import { plainValue } from '../../src/generic/response';
import { toTree, type Ordered } from '../../src/generic/xml';
import { Stub } from '../client/stub';

const S11 = 'http://schemas.xmlsoap.org/soap/envelope/';
const CHUNK = 64 * 1024;

const envelope = (inner: string): string =>
  `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${S11}"><soap:Body>` +
  `<OpResponse xmlns="urn:x"><OpResult>${inner}</OpResult></OpResponse></soap:Body></soap:Envelope>`;

/** `n` tiny elements in the result: the 23 MB answer of the issue is 2.9 million of them. */
function tinyElements(n: number): Buffer {
  const [head, tail] = envelope('|').split('|') as [string, string];
  return Buffer.concat([Buffer.from(head), Buffer.alloc(n * 8, '<a>1</a>'), Buffer.from(tail)]);
}

interface Outcome {
  value?: unknown;
  error?: Error;
  /** Bytes given to the decoder before it failed (all of them when it did not). */
  written: number;
}

/** Feeds `body` in 64 KiB chunks, as the transport does, and stops at the first error. */
function decode(
  body: Buffer | string,
  limits: Partial<InvokeLimits> = {},
  typed = false,
  operation = 'Op',
): Outcome {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const d = createGenericDecoder({ transport: 'soap11', operation, typed }, resolveInvokeLimits(limits));
  let written = 0;
  try {
    for (; written < bytes.length; written += CHUNK) d.write(bytes.subarray(written, written + CHUNK));
    return { value: d.end(), written };
  } catch (error) {
    return { error: error as Error, written };
  }
}

function refused(outcome: Outcome, limit: RegExp): void {
  assert.ok(isGatewayError(outcome.error), `expected PARSE, got ${String(outcome.error ?? 'a value')}`);
  assert.equal(outcome.error.code, 'PARSE');
  assert.match(outcome.error.message, limit);
}

describe('generic answers are bounded while they are read (invoke limits)', function () {
  this.timeout(60_000);

  it('the 23 MB answer of tiny elements fails with PARSE naming maxElements, after ~2 MB and in bounded memory', () => {
    const body = tinyElements(2_900_000);
    assert.ok(body.length > 23_000_000 && body.length < 32 * 1024 * 1024, 'under maxResponseBytes');
    global.gc?.();
    const heap = process.memoryUsage().heapUsed;
    const outcome = decode(body);
    refused(outcome, /more than 250,000 elements \(maxElements\)/);
    // Stopped while reading: the transport aborts the request at this write.
    assert.ok(outcome.written < 2.2 * 1024 * 1024, `read ${outcome.written} bytes`);
    const grown = (process.memoryUsage().heapUsed - heap) / 1024 / 1024;
    assert.ok(grown < 64, `heap grew ${grown.toFixed(0)} MB`);
  });

  it('each limit fails with PARSE naming it; a larger limit of the caller reads the answer', () => {
    const deep = (n: number): string => envelope(`${'<a>'.repeat(n)}x${'</a>'.repeat(n)}`);
    // Envelope, Body, OpResponse, OpResult: 4 levels around the nest.
    refused(decode(deep(61)), /elements nested deeper than 64 levels \(maxDepth\)/);
    refused(decode(deep(17), { maxDepth: 20 }), /deeper than 20 levels \(maxDepth\)/);
    assert.equal(decode(deep(200), { maxDepth: 300 }).error, undefined);

    const text = envelope(`<t>${'x'.repeat(3000)}</t>`);
    refused(
      decode(text, { maxTextLength: 2048 }),
      /a text or attribute value of more than 2,048 bytes \(maxTextLength\)/,
    );
    assert.equal(decode(text, { maxTextLength: 4096 }).error, undefined);
    // Text of one element split by its children, an attribute value, a CDATA section.
    const mixed = envelope(`<t>${'x'.repeat(1500)}<b/>${'y'.repeat(1500)}</t>`);
    refused(decode(mixed, { maxTextLength: 2048 }), /\(maxTextLength\)/);
    refused(decode(envelope(`<t a="${'v'.repeat(3000)}"/>`), { maxTextLength: 2048 }), /\(maxTextLength\)/);
    refused(
      decode(envelope(`<t><![CDATA[${'c'.repeat(3000)}]]></t>`), { maxTextLength: 2048 }),
      /\(maxTextLength\)/,
    );
    // A comment (or tag) that never ends is not held beyond the limit.
    const endless = Buffer.concat([
      Buffer.from(envelope('<!--').split('</OpResult>')[0]!),
      Buffer.alloc(1 << 20, 'z'),
    ]);
    const held = decode(endless, { maxTextLength: 128 * 1024 });
    refused(held, /markup of more than 131,072 bytes without an end \(maxTextLength\)/);
    assert.ok(held.written <= 256 * 1024, `read ${held.written} bytes`);

    const many = envelope(`<t>${'x'.repeat(1000)}</t>`.repeat(10));
    refused(decode(many, { maxDecodedLength: 5000 }), /more than 5,000 bytes of text \(maxDecodedLength\)/);
    assert.equal(decode(many, { maxDecodedLength: 20_000 }).error, undefined);
    refused(decode(tinyElements(1001), { maxElements: 1000 }), /more than 1,000 elements \(maxElements\)/);
  });

  it('references cannot multiply the decoded answer past maxDecodedLength', () => {
    // One 100 KB text referred to 100 times: 10 MB of text from a 100 KB answer.
    let body = '<R><OpResult>';
    for (let i = 0; i < 100; i++) body += `<v href="#big"/>`;
    body += `</OpResult></R><x id="big">${'t'.repeat(100_000)}</x>`;
    const doc = `<?xml version="1.0"?><soap:Envelope xmlns:soap="${S11}"><soap:Body>${body}</soap:Body></soap:Envelope>`;
    refused(
      decode(doc, { maxDecodedLength: 1_000_000 }),
      /decodes to more than 1,000,000 characters of text, references followed \(maxDecodedLength\)/,
    );
    const ok = decode(doc, { maxDecodedLength: 20_000_000 });
    assert.equal((ok.value as { v: string[] }).v.length, 100);
  });

  it('no recursion: the tree and the conversion take 100,000 levels and 150,000 siblings', () => {
    // fast-xml-parser's own cost grows with the square of the depth: the tree and the conversion are ours.
    const n = 100_000;
    const leaf: Ordered = { a: [{ '#text': 'x' }] };
    let top = leaf;
    for (let i = 1; i < n; i++) top = { a: [top] };
    const tree = toTree('a', top);
    let level = plainValue(tree, false, resolveInvokeLimits({ maxElements: n + 1 })) as { a?: unknown };
    let depth = 1;
    while (typeof level === 'object' && level !== null && 'a' in level) {
      level = level.a as { a?: unknown };
      depth++;
    }
    assert.equal(depth, n);
    assert.equal(level, 'x');
    const wide = toTree('r', { r: Array.from({ length: 150_000 }, () => ({ a: [{ '#text': '1' }] })) });
    assert.equal((plainValue(wide, true) as { a: number[] }).a.length, 150_000);
  });

  it('an answer 2,000 levels deep decodes with a limit that allows it', () => {
    const n = 2_000;
    const deep = decode(envelope(`${'<a>'.repeat(n)}x${'</a>'.repeat(n)}`), { maxDepth: n + 10 });
    assert.equal(deep.error, undefined, String(deep.error));
  });

  it('the defaults are documented: 250,000 elements, 64 levels, 8 MiB per text, 64 MiB of text', () => {
    assert.deepEqual(
      { ...DEFAULT_INVOKE_LIMITS },
      {
        maxElements: 250_000,
        maxDepth: 64,
        maxTextLength: 8 * 1024 * 1024,
        maxDecodedLength: 64 * 1024 * 1024,
      },
    );
  });

  describe('through the client', () => {
    let stub: Stub;
    before(async () => {
      stub = await new Stub().start();
    });
    after(() => stub.stop());

    const client = (extra: Record<string, unknown> = {}): GatewayClient =>
      new GatewayClient({
        baseUrl: stub.url,
        user: 'u',
        password: 'secret-pw',
        gatewayNamespace: 'urn:x',
        retries: 0,
        ...extra,
      });

    it('invoke() reads a 5,000-record delivery-report page with the default limits', async () => {
      stub.handler = (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/xml; charset=utf-8' });
        res.end(dlrResponse(5000));
      };
      const c = client();
      try {
        const v = (await c.invoke(
          'information',
          'QueryReceivedDLR',
          { StartDate: new Date(0), Limit: 5000 },
          {
            lists: ['Value'],
          },
        )) as { Value: unknown[] };
        assert.equal(v.Value.length, 5000);
      } finally {
        await c.close();
      }
    });

    it('the client option invokeLimits and the call option limits apply; bad ones are refused before sending', async () => {
      stub.handler = (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/xml; charset=utf-8' });
        res.end(tinyElements(2000));
      };
      const narrow = client({ invokeLimits: { maxElements: 1000 } });
      try {
        const err = await narrow.invoke('/x/Svc.asmx', 'Op', {}, { namespace: 'urn:x' }).then(
          () => undefined,
          (e: unknown) => e,
        );
        assert.ok(isGatewayError(err));
        assert.equal(err.code, 'PARSE');
        assert.match(err.message, /more than 1,000 elements \(maxElements\)/);
        const wider = (await narrow.invoke(
          '/x/Svc.asmx',
          'Op',
          {},
          { namespace: 'urn:x', limits: { maxElements: 5000 } },
        )) as {
          a: string[];
        };
        assert.equal(wider.a.length, 2000);
        const before = stub.seen.length;
        for (const limits of [{ maxElements: 0 }, { maxDepth: 1.5 }, { maxNodes: 3 }, 'many'] as never[]) {
          const bad = await narrow.invoke('/x/Svc.asmx', 'Op', {}, { limits, namespace: 'urn:x' }).then(
            () => undefined,
            (e: unknown) => e,
          );
          assert.ok(isGatewayError(bad));
          assert.equal(bad.code, 'VALIDATION', bad.message);
        }
        assert.equal(stub.seen.length, before, 'nothing sent for a bad limit');
      } finally {
        await narrow.close();
      }
      assert.throws(
        () => client({ invokeLimits: { maxTextLength: -1 } }),
        (e: unknown) =>
          isGatewayError(e) && e.code === 'CONFIG' && /invokeLimits.*maxTextLength/.test(e.message),
      );
    });
  });
});
