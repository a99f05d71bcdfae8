import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { GatewayClient } from '../../src/client';
import { GatewayError } from '../../src/errors';
import { endless, GiB, until } from './fixtures/endless-gateway';

describe('client: bounded answers (maxResponseBytes)', function () {
  this.timeout(60_000);

  // invoke() holds the whole answer for fast-xml-parser: its own limits stop it first (the endless answer passes
  // 250,000 elements after ~10 MB), maxResponseBytes bounds the typed path.
  for (const path of ['typed', 'invoke'] as const) {
    it(`${path}: a 1 GiB answer fails with PARSE naming the limit, the client process stays under 200 MB`, async () => {
      const gateway = await endless(GiB);
      try {
        const script = join(__dirname, 'fixtures', 'big-answer-client.ts');
        const stdout = await new Promise<string>((resolve, reject) =>
          execFile(
            process.execPath,
            ['-r', 'tsx/cjs', script, gateway.url, 'soap11', path],
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
        assert.match(
          result.message,
          path === 'invoke' ? /250,000 elements \(maxElements\)/ : /32 MiB \(maxResponseBytes\)/,
        );
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
  }

  const LIMIT = 64 * 1024;
  for (const transport of ['soap11', 'soap12', 'get', 'post'] as const) {
    for (const path of ['typed', 'invoke'] as const) {
      it(`${transport}, ${path}: stops reading past the limit, aborts the request and fails with PARSE`, async () => {
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
          const params = { StartDate: new Date(0), Limit: 5000 };
          const call =
            path === 'invoke'
              ? client.invoke('information', 'QueryReceivedDLR', params)
              : client.information.queryReceivedDlr(params);
          const err = await call.then(
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
