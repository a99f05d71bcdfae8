import assert from 'node:assert/strict';
import type { NodeAPI } from 'node-red';
import type { NextFunction, Request, Response } from 'express';
import { OPERATIONS } from '../../src/catalogue';
import { NODE_OPERATIONS } from '../../src/nodes/common/operations';
import type { SmsgwConfigNode } from '../../src/nodes/config/types';
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

    it('needs smsgw-config.write (and the catalogue smsgw-config.read)', async () => {
      const granted = new Set<string>();
      const asked: string[] = [];
      const withAuth = (RED: NodeAPI): void => {
        // The helper's RED.auth lets everything through; this one behaves like adminAuth for one user.
        (RED as unknown as { auth: unknown }).auth = {
          needsPermission: (permission: string) => {
            asked.push(permission);
            return (_req: Request, res: Response, next: NextFunction) =>
              granted.has(permission) ? next() : res.status(401).end();
          },
        };
      };
      await helper.load([withAuth, ...ALL_NODES], flowWith(env.emu.url, []), { cfg: DEMO });
      assert.ok(asked.includes('smsgw-config.write'));
      const body = { baseUrl: env.emu.url, password: '__PWRD__' };
      await helper.request().post('/smsgw-config/cfg/test').send(body).expect(401);
      await helper.request().get('/smsgw/operations').expect(401);
      granted.add('smsgw-config.read');
      await helper.request().get('/smsgw/operations').expect(200);
      await helper.request().post('/smsgw-config/cfg/test').send(body).expect(401);
      granted.add('smsgw-config.write');
      const res = await helper.request().post('/smsgw-config/cfg/test').send(body).expect(200);
      assert.equal(res.body.ok, true);
    });
  });
});
