import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { GatewayClient } from '../../src/client';
import { GatewayError } from '../../src/errors';

const GiB = 1024 * 1024 * 1024;
const SOAP11 = 'http://schemas.xmlsoap.org/soap/envelope/';
const SOAP12 = 'http://www.w3.org/2003/05/soap-envelope';

/** What a record of an endless QueryReceivedDLR answer looks like. */
const RECORD =
  '<SMSReport><Id>1</Id><JobId>2</JobId><Recipient>+4917012345678</Recipient><Status>DELIVERED</Status>' +
  '<Date>2026-01-01T10:00:00</Date><Text>' +
  'x'.repeat(400) +
  '</Text></SMSReport>';

function head(transport: string): string {
  const inner = '<QueryReceivedDLRResult><StatusCode>Ok</StatusCode><Value>';
  if (transport === 'get' || transport === 'post')
    return `<?xml version="1.0" encoding="utf-8"?><SOAPResponseOfListOfSMSReport xmlns="urn:test"><StatusCode>Ok</StatusCode><Value>`;
  const env = transport === 'soap12' ? SOAP12 : SOAP11;
  return `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${env}"><soap:Body><QueryReceivedDLRResponse xmlns="urn:test">${inner}`;
}

interface Endless {
  url: string;
  /** Bytes written per response, and whether its connection closed before the whole answer was written. */
  answers: Array<{ written: number; cutOff: boolean }>;
  close(): Promise<void>;
}

/**
 * A gateway that answers every request (the WSDL included) with a valid start and then records until
 * `total` bytes, written with back-pressure so that it writes only as fast as the client reads.
 */
async function endless(total: number, opts: { announce?: boolean } = {}): Promise<Endless> {
  const answers: Endless['answers'] = [];
  const server: Server = createServer((req, res: ServerResponse) => {
    req.resume();
    const transport = req.headers['content-type']?.includes('soap+xml')
      ? 'soap12'
      : req.method === 'GET'
        ? 'get'
        : req.headers.soapaction
          ? 'soap11'
          : 'post';
    const answer = { written: 0, cutOff: false };
    answers.push(answer);
    const headers: Record<string, string | number> = { 'content-type': 'text/xml; charset=utf-8' };
    if (opts.announce) headers['content-length'] = total;
    res.writeHead(200, headers);
    const chunk = Buffer.from(RECORD.repeat(Math.ceil(65536 / RECORD.length)));
    const write = (): void => {
      if (answer.written === 0) answer.written += res.write(head(transport)) ? 0 : 0;
      while (answer.written < total) {
        answer.written += chunk.length;
        if (!res.write(chunk)) {
          res.once('drain', write);
          return;
        }
      }
      res.end();
    };
    res.on('close', () => {
      if (!res.writableFinished) answer.cutOff = true;
    });
    write();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    answers,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const until = async (check: () => boolean, ms = 5000): Promise<void> => {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
};

describe('client: bounded answers (maxResponseBytes)', function () {
  this.timeout(60_000);

  it('a 1 GiB answer fails with PARSE naming the limit, the client process stays under 200 MB', async () => {
    const gateway = await endless(GiB);
    try {
      const script = join(__dirname, 'fixtures', 'big-answer-client.ts');
      const stdout = await new Promise<string>((resolve, reject) =>
        execFile(
          process.execPath,
          ['-r', 'tsx/cjs', script, gateway.url, 'soap11'],
          { timeout: 55_000 },
          (err, out, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(out)),
        ),
      );
      const result = JSON.parse(stdout.trim()) as {
        ok: boolean;
        code: string;
        message: string;
        maxRssMb: number;
      };
      assert.equal(result.ok, false, stdout);
      assert.equal(result.code, 'PARSE', result.message);
      assert.match(result.message, /32 MiB \(maxResponseBytes\)/);
      assert.ok(result.maxRssMb < 200, `peak RSS ${result.maxRssMb.toFixed(0)} MB`);
      // The client stopped reading: the gateway's connection closed long before the body's end.
      await until(() => gateway.answers[0]?.cutOff === true);
      const answer = gateway.answers[0]!;
      assert.equal(answer.cutOff, true);
      assert.ok(answer.written < GiB / 4, `the gateway wrote ${answer.written} bytes`);
    } finally {
      await gateway.close();
    }
  });

  const LIMIT = 64 * 1024;
  for (const transport of ['soap11', 'soap12', 'get', 'post'] as const) {
    it(`${transport}: stops reading past the limit, aborts the request and fails with PARSE`, async () => {
      const gateway = await endless(16 * 1024 * 1024);
      const client = new GatewayClient({
        baseUrl: gateway.url,
        user: 'u',
        password: 'secret-pw',
        gatewayNamespace: 'urn:test',
        transport,
        retries: 0,
        maxResponseBytes: LIMIT,
      });
      try {
        const err = await client.information.queryReceivedDlr({ StartDate: new Date(0), Limit: 5000 }).then(
          () => undefined,
          (e: unknown) => e,
        );
        assert.ok(err instanceof GatewayError, String(err));
        assert.equal(err.code, 'PARSE');
        assert.equal(err.operation, 'QueryReceivedDLR');
        assert.match(err.message, /65536 bytes \(maxResponseBytes\)/);
        await until(() => gateway.answers[0]?.cutOff === true);
        assert.equal(gateway.answers[0]?.cutOff, true);
      } finally {
        await client.close();
        await gateway.close();
      }
    });
  }

  it('the WSDL fetch of namespace discovery has the same limit', async () => {
    const gateway = await endless(16 * 1024 * 1024);
    const client = new GatewayClient({
      baseUrl: gateway.url,
      user: 'u',
      password: 'secret-pw',
      retries: 0,
      maxResponseBytes: LIMIT,
    });
    try {
      const err = await client.information.queryAccountBalance().then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(err instanceof GatewayError, String(err));
      assert.equal(err.code, 'PARSE');
      assert.match(err.message, /65536 bytes \(maxResponseBytes\)/);
      await until(() => gateway.answers[0]?.cutOff === true);
      assert.equal(gateway.answers[0]?.cutOff, true);
      assert.equal(gateway.answers.length, 1, 'the WSDL request only');
    } finally {
      await client.close();
      await gateway.close();
    }
  });

  it('an answer announced larger than the limit (Content-Length) is refused before its body is read', async () => {
    const gateway = await endless(16 * 1024 * 1024, { announce: true });
    const client = new GatewayClient({
      baseUrl: gateway.url,
      user: 'u',
      password: 'secret-pw',
      gatewayNamespace: 'urn:test',
      retries: 0,
      maxResponseBytes: LIMIT,
    });
    try {
      await assert.rejects(
        client.information.queryReceivedDlr({ StartDate: new Date(0), Limit: 1 }),
        (e: unknown) =>
          e instanceof GatewayError &&
          e.code === 'PARSE' &&
          /announced as 16777216 bytes/.test(e.message) &&
          e.ambiguous === true,
      );
    } finally {
      await client.close();
      await gateway.close();
    }
  });

  it('refuses a limit that is not a positive integer', () => {
    assert.throws(
      () =>
        new GatewayClient({
          baseUrl: 'http://127.0.0.1:1',
          user: 'u',
          password: 'secret-pw',
          maxResponseBytes: 0,
        }),
      (e: unknown) => e instanceof GatewayError && e.code === 'CONFIG' && /maxResponseBytes/.test(e.message),
    );
  });
});
