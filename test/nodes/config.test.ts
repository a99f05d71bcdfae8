import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { NodeAPI } from 'node-red';
import type { NextFunction, Request, Response } from 'express';
import { OPERATIONS } from '../../src/catalogue';
import { NODE_OPERATIONS } from '../../src/nodes/common/operations';
import type { SmsgwConfigNode } from '../../src/nodes/config/config-node';
import {
  ALL_NODES,
  DEMO,
  flowWith,
  helper,
  loadFlow,
  nextMessage,
  send,
  startEnv,
  stopEnv,
  type Env,
} from './helpers';
import { sendSmsNode } from './send-sms-node';

const sms = (id: string) => sendSmsNode({ id });

describe('nodes: smsgw-config and the admin endpoints', () => {
  let env: Env;
  before(async () => {
    env = await startEnv();
  });
  after(() => stopEnv(env));
  afterEach(() => helper.unload());

  it('one client is shared by every node using the config, and closed when the flow stops', async () => {
    await loadFlow(flowWith(env.emu.url, [sms('a'), sms('b')]));
    const cfg = helper.getNode('cfg') as unknown as SmsgwConfigNode & { users: Map<string, unknown> };
    assert.deepEqual([...cfg.users.keys()].sort(), ['a', 'b']);
    const client = cfg.getClient();
    assert.equal(cfg.getClient(), client);
    let closed = false;
    const close = client.close.bind(client);
    client.close = async () => {
      closed = true;
      await close();
    };
    await helper.unload();
    assert.equal(closed, true);
  });

  it('Max answer size (MiB) bounds every answer: a larger one reaches Catch as PARSE naming the limit', async () => {
    // 1 KiB: smaller than the emulator's WSDL and SendSMS answer, so the first read past it fails.
    await loadFlow(flowWith(env.emu.url, [sms('n1')], { maxResponseSize: String(1 / 1024) }));
    const caught = nextMessage('caught');
    send('n1', { payload: 'x' });
    const error = (await caught).error as { code: string; message: string };
    assert.equal(error.code, 'PARSE');
    assert.match(error.message, /1024 bytes \(maxResponseBytes\)/);
    await helper.unload();

    await loadFlow(flowWith(env.emu.url, [sms('n1')], { maxResponseSize: '1' }));
    const out = nextMessage('out');
    send('n1', { payload: 'fits in 1 MiB' });
    assert.equal(((await out).payload as { CreateStatus: string }).CreateStatus, 'Ok');
  });

  it('refuses HTTP GET over plain http unless allowed, and works once allowed', async () => {
    await loadFlow(flowWith(env.emu.url, [sms('n1')], { transport: 'get' }));
    const caught = nextMessage('caught');
    send('n1', { payload: 'x' });
    const error = (await caught).error as { code: string; message: string };
    assert.equal(error.code, 'CONFIG');
    assert.match(error.message, /plain http/);
    // names the checkbox as the dialog labels it (and the tab it is on)
    assert.ok(error.message.includes('tick "Allow GET/POST over plain http" ('), error.message);
    assert.match(error.message, /Connection tab/);
    await helper.unload();

    await loadFlow(flowWith(env.emu.url, [sms('n1')], { transport: 'get', allowInsecure: true }));
    const out = nextMessage('out');
    send('n1', { payload: 'over get' });
    assert.equal(((await out).payload as { CreateStatus: string }).CreateStatus, 'Ok');
  });

  it('a config without user or password: every call fails with CONFIG naming the gateway, before anything is sent', async () => {
    for (const creds of [{}, { user: 'demo' }, { password: 'demo-password' }, { user: ' ', password: 'x' }]) {
      await loadFlow(
        flowWith(
          env.emu.url,
          [sms('n1'), { id: 'bal', type: 'smsgw-balance', gateway: 'cfg', wires: [['out']] }],
          {
            name: 'Alarm gateway',
          },
        ),
        { cfg: creds },
      );
      const before = env.emu.requests.list().length;
      for (const id of ['n1', 'bal']) {
        const caught = nextMessage('caught');
        send(id, { payload: 'x' });
        const error = (await caught).error as { code: string; message: string };
        assert.equal(error.code, 'CONFIG', `${id} ${JSON.stringify(creds)}`);
        assert.match(error.message, /^gateway 'Alarm gateway' has no user\/password/);
        assert.doesNotMatch(error.message, /InvalidUser|login refused/);
      }
      assert.equal(env.emu.requests.list().length, before, 'nothing was sent');
      await helper.unload();
    }
    // unnamed: its base URL names it
    await loadFlow(flowWith(env.emu.url, [sms('n1')]), { cfg: {} });
    const caught = nextMessage('caught');
    send('n1', { payload: 'x' });
    assert.match(
      ((await caught).error as { message: string }).message,
      new RegExp(`^gateway '${env.emu.url}' has no user/password`),
    );
  });

  it('a config without user or password: the inbound and HLR results triggers (one reader of the config) fail with CONFIG naming the gateway, nothing read', async () => {
    for (const type of ['smsgw-inbound', 'smsgw-hlr-results', 'smsgw-dlr']) {
      await loadFlow(
        flowWith(
          env.emu.url,
          [{ id: 'p1', type, gateway: 'cfg', interval: 0, inputs: 1, wires: [['out']] }],
          {
            name: 'Alarm gateway',
          },
        ),
        { cfg: {} },
      );
      const before = env.emu.requests.list().length;
      const caught = nextMessage('caught');
      send('p1', { payload: 'poll' });
      const error = (await caught).error as { code: string; message: string };
      assert.equal(error.code, 'CONFIG', type);
      assert.match(error.message, /^gateway 'Alarm gateway' has no user\/password/, type);
      assert.equal(env.emu.requests.list().length, before, `${type}: nothing was sent`);
      await helper.unload();
    }
  });

  it('a config without an account still serves the any-operation node that sends no credentials', async () => {
    await loadFlow(
      flowWith(env.emu.url, [
        {
          id: 'call',
          type: 'smsgw-call',
          gateway: 'cfg',
          service: 'information',
          operation: 'QueryAccountBalance',
          auth: 'none',
          wires: [['out']],
        },
      ]),
      { cfg: {} },
    );
    const out = nextMessage('out');
    send('call', { payload: { User: 'demo', Password: 'demo-password' } });
    assert.equal(((await out).payload as { StatusCode: string }).StatusCode, 'Ok');
  });

  it('a proxy URL holding a password is refused; the proxy password comes from the credentials', async () => {
    await loadFlow(flowWith(env.emu.url, [sms('n1')], { proxyUrl: 'http://alice:s3cret@127.0.0.1:9' }));
    const caught = nextMessage('caught');
    send('n1', { payload: 'x' });
    const error = (await caught).error as { code: string; message: string };
    assert.equal(error.code, 'CONFIG');
    assert.match(
      error.message,
      /Proxy URL: a URL starting with http:\/\/ or https:\/\/, without a password \(that goes into Proxy password\)/,
    );
    assert.doesNotMatch(error.message, /s3cret/);
    await helper.unload();

    // a proxy that records how it was asked (it refuses the tunnel: the send fails, which is fine here)
    const asked: (string | undefined)[] = [];
    const proxy = createServer();
    proxy.on('connect', (req: IncomingMessage, socket: Socket) => {
      asked.push(req.headers['proxy-authorization']);
      socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const port = (proxy.address() as AddressInfo).port;
      await loadFlow(flowWith(env.emu.url, [sms('n1')], { proxyUrl: `http://alice@127.0.0.1:${port}` }), {
        cfg: { ...DEMO, proxyPassword: 'pr0xy pass' },
      });
      const failed = nextMessage('caught');
      send('n1', { payload: 'x' });
      const err = (await failed).error as { message: string };
      assert.doesNotMatch(JSON.stringify(err), /pr0xy/);
      assert.ok(asked.length > 0, 'the proxy was asked');
      assert.deepEqual(
        new Set(asked),
        new Set([`Basic ${Buffer.from('alice:pr0xy pass').toString('base64')}`]),
      );
    } finally {
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  });

  for (const transport of ['soap12', 'post']) {
    it(`sends over ${transport}`, async () => {
      await loadFlow(flowWith(env.emu.url, [sms('n1')], { transport, allowInsecure: true }));
      const out = nextMessage('out');
      send('n1', { payload: `over ${transport}` });
      assert.equal(((await out).payload as { CreateStatus: string }).CreateStatus, 'Ok');
    });
  }

  it('GET smsgw/operations serves every operation the nodes offer, from the catalogue, without credentials', async () => {
    await loadFlow(flowWith(env.emu.url, []));
    const res = await helper.request().get('/smsgw/operations').expect(200);
    const body = res.body as Record<string, { key: string; params: { name: string; values?: string[] }[] }[]>;
    for (const [type, keys] of Object.entries(NODE_OPERATIONS)) {
      assert.deepEqual(
        body[type]!.map((o) => o.key),
        keys,
      );
    }
    const sendSms = body['smsgw-send-sms']!.find((o) => o.key === 'send/SendSMS')!;
    const catalogued = OPERATIONS.find((o) => o.service === 'send' && o.name === 'SendSMS')!;
    assert.deepEqual(
      sendSms.params.map((p) => p.name),
      catalogued.params.filter((p) => !p.credential).map((p) => p.name),
    );
    assert.ok(sendSms.params.find((p) => p.name === 'SmsTyp')!.values!.includes('StandardLong'));
    assert.ok(!JSON.stringify(body).includes('"Password"'));
  });

  it('POST smsgw/analyze counts encoding and segments', async () => {
    await loadFlow(flowWith(env.emu.url, []));
    const res = await helper
      .request()
      .post('/smsgw/analyze')
      .send({ text: 'x'.repeat(161) })
      .expect(200);
    assert.deepEqual(
      { encoding: res.body.encoding, segments: res.body.segments },
      { encoding: 'GSM-7', segments: 2 },
    );
  });

  it('POST smsgw/analyze names the characters that force UCS-2 and, with replace, analyses the replaced text', async () => {
    await loadFlow(flowWith(env.emu.url, []));
    let res = await helper.request().post('/smsgw/analyze').send({ text: 'It’s … ł' }).expect(200);
    assert.deepEqual(
      { encoding: res.body.encoding, ucs2: res.body.ucs2, replaced: res.body.replaced },
      {
        encoding: 'UCS-2',
        ucs2: [
          { char: '’', at: 2 },
          { char: '…', at: 5 },
          { char: 'ł', at: 7 },
        ],
        replaced: undefined,
      },
    );
    res = await helper.request().post('/smsgw/analyze').send({ text: 'It’s ok…', replace: true }).expect(200);
    assert.deepEqual(
      {
        encoding: res.body.encoding,
        units: res.body.units,
        ucs2: res.body.ucs2,
        replaced: res.body.replaced,
      },
      { encoding: 'GSM-7', units: 10, ucs2: [], replaced: 2 },
    );
    assert.deepEqual(res.body.swaps, [
      { char: '’', with: "'", at: 2 },
      { char: '…', with: '...', at: 7 },
    ]);
  });

  it('POST smsgw/analyze counts a fixed recipient text as the spending guard counts it', async () => {
    await loadFlow(flowWith(env.emu.url, []));
    const count = async (recipients?: string): Promise<unknown> =>
      (await helper.request().post('/smsgw/analyze').send({ text: 'hi', recipients }).expect(200)).body
        .recipients;
    assert.equal(await count('+4917012345678, +4917012345679; +4917012345670\n+4917012345671'), 4);
    assert.equal(await count('+4917012345678'), 1);
    assert.equal(await count(undefined), undefined);
  });

  describe('Test connection', () => {
    it('uses the stored password when the dialog sends the placeholder, and shows the balance', async () => {
      env.emu.control.finishJobs(); // jobs of earlier tests are charged when sent
      env.emu.control.setBalance('demo', 42.5);
      await loadFlow(flowWith(env.emu.url, []));
      const res = await helper
        .request()
        .post('/smsgw-config/cfg/test')
        .send({
          baseUrl: env.emu.url,
          service: 'gateway',
          transport: 'soap11',
          user: 'demo',
          password: '__PWRD__',
        })
        .expect(200);
      assert.deepEqual(res.body, { ok: true, balance: 42.5, operation: 'QueryAccountBalance' });
    });

    it('works for an unsaved config node with the typed credentials (older service: QueryBalance2)', async () => {
      await loadFlow(flowWith(env.emu.url, []));
      const res = await helper
        .request()
        .post('/smsgw-config/not-deployed/test')
        .send({ baseUrl: env.emu.url, service: 'legacy', transport: 'soap12', ...DEMO })
        .expect(200);
      assert.equal(res.body.ok, true);
      assert.equal(res.body.operation, 'QueryBalance2');
    });

    it('reports the LoginStatus of a wrong password without echoing it', async () => {
      await loadFlow(flowWith(env.emu.url, []));
      const res = await helper
        .request()
        .post('/smsgw-config/cfg/test')
        .send({ baseUrl: env.emu.url, service: 'gateway', user: 'demo', password: 'not-the-password-123' })
        .expect(200);
      assert.equal(res.body.ok, false);
      assert.equal(res.body.code, 'AUTH');
      assert.equal(res.body.status, 'InvalidUser');
      assert.ok(!JSON.stringify(res.body).includes('not-the-password-123'));
    });

    it('needs smsgw-config.write and flows.write (and the catalogue smsgw-config.read)', async () => {
      const granted = new Set<string>();
      const asked: string[] = [];
      const withAuth = (RED: NodeAPI): void => {
        // The helper's RED.auth lets everything through; this one behaves like adminAuth for one user
        // (Node-RED checks a list of permissions as all of them).
        (RED as unknown as { auth: unknown }).auth = {
          needsPermission: (permission: string | string[]) => {
            const all = [permission].flat();
            asked.push(...all);
            return (_req: Request, res: Response, next: NextFunction) =>
              all.every((p) => granted.has(p)) ? next() : res.status(401).end();
          },
        };
      };
      await helper.load([withAuth, ...ALL_NODES], flowWith(env.emu.url, []), { cfg: DEMO });
      assert.ok(asked.includes('smsgw-config.write'));
      const body = { baseUrl: env.emu.url, user: 'demo', password: '__PWRD__' };
      await helper.request().post('/smsgw-config/cfg/test').send(body).expect(401);
      await helper.request().get('/smsgw/operations').expect(401);
      granted.add('smsgw-config.read');
      await helper.request().get('/smsgw/operations').expect(200);
      await helper.request().post('/smsgw-config/cfg/test').send(body).expect(401);
      granted.add('smsgw-config.write');
      // may not deploy: may not make Node-RED send requests to addresses of its choice either
      await helper.request().post('/smsgw-config/cfg/test').send(body).expect(401);
      granted.add('flows.write');
      const res = await helper.request().post('/smsgw-config/cfg/test').send(body).expect(200);
      assert.equal(res.body.ok, true);
    });

    describe('stored credentials go only where they were deployed for', () => {
      let capture: Server;
      let captureUrl = '';
      const seen: string[] = [];
      before(async () => {
        capture = createServer((req, res) => {
          seen.push(`${req.method} ${req.url}`);
          res.end('nothing here');
        });
        // a proxy is asked with CONNECT
        capture.on('connect', (req: IncomingMessage, socket: Socket) => {
          seen.push(`CONNECT ${req.url}`);
          socket.destroy();
        });
        await new Promise<void>((resolve) => capture.listen(0, '127.0.0.1', resolve));
        captureUrl = `http://127.0.0.1:${(capture.address() as AddressInfo).port}`;
      });
      after(() => new Promise<void>((resolve) => capture.close(() => resolve())));
      beforeEach(() => {
        seen.length = 0;
      });

      const saved = (): Record<string, unknown> => ({
        baseUrl: env.emu.url,
        service: 'gateway',
        transport: 'soap11',
        user: 'demo',
        password: '__PWRD__',
        tlsRejectUnauthorized: true,
      });
      const test = async (id: string, body: Record<string, unknown>): Promise<Record<string, unknown>> =>
        (await helper.request().post(`/smsgw-config/${id}/test`).send(body).expect(200)).body as Record<
          string,
          unknown
        >;

      it('the saved values with the placeholder: the stored password, the balance', async () => {
        await loadFlow(flowWith(env.emu.url, []));
        assert.equal((await test('cfg', saved())).ok, true);
        // the user left out: the stored one too
        const { user: _user, ...noUser } = saved();
        assert.equal((await test('cfg', noUser)).ok, true);
      });

      for (const [what, change] of [
        ['another base URL', () => ({ baseUrl: captureUrl })],
        ['another proxy', () => ({ proxyUrl: captureUrl })],
        ['TLS checks turned off', () => ({ tlsRejectUnauthorized: false })],
        [
          'another CA certificate',
          () => ({ tlsCa: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----' }),
        ],
      ] as const) {
        it(`${what} with the placeholder: refused, nothing sent anywhere`, async () => {
          await loadFlow(flowWith(env.emu.url, []));
          const before = env.emu.requests.list().length;
          const r = await test('cfg', { ...saved(), ...change() });
          assert.equal(r.ok, false);
          assert.equal(r.code, 'CONFIG');
          assert.match(String(r.message), /type the password/);
          assert.deepEqual(seen, []);
          assert.equal(env.emu.requests.list().length, before);
        });
      }

      it('another base URL with the password typed: tested there (unsaved values work)', async () => {
        await loadFlow(flowWith(env.emu.url, []));
        const r = await test('cfg', {
          ...saved(),
          baseUrl: captureUrl,
          gatewayNamespace: 'https://gateway.smsgw.example/',
          password: 'typed-here',
        });
        assert.equal(r.ok, false);
        assert.notEqual(r.code, 'CONFIG', String(r.message));
        assert.deepEqual(
          seen,
          ['POST /gateway/Information.asmx'],
          'the typed password went where the dialog said',
        );
      });

      it("another node's id with the placeholder: nothing read, nothing sent", async () => {
        await loadFlow(flowWith(env.emu.url, []), { cfg: DEMO, out: { password: 'not-ours' } });
        for (const id of ['out', 'catcher', 'not-deployed']) {
          const r = await test(id, { ...saved(), baseUrl: captureUrl });
          assert.equal(r.ok, false, id);
          assert.equal(r.code, 'CONFIG', id);
        }
        assert.deepEqual(seen, []);
      });

      it('no user or password: says so before anything is sent', async () => {
        await loadFlow(flowWith(env.emu.url, [], { name: 'Alarm gateway' }), { cfg: {} });
        const before = env.emu.requests.list().length;
        const r = await test('cfg', { ...saved(), name: 'Alarm gateway', user: '' });
        assert.equal(r.code, 'CONFIG');
        assert.match(String(r.message), /^gateway 'Alarm gateway' has no user\/password/);
        const typedUserOnly = await test('not-deployed', { ...saved(), user: 'demo', password: '' });
        assert.match(String(typedUserOnly.message), /has no user\/password/);
        assert.equal(env.emu.requests.list().length, before);
      });
    });
  });
});
