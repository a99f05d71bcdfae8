/**
 * The package's admin routes on a real Node-RED with adminAuth: Test connection never sends stored
 * credentials anywhere but where they were deployed for, never reads another node type's credentials, and needs
 * the right to deploy; the editor's own uses still work. Also, on the same runtime: a configuration without an
 * account and the log name of an unnamed node.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { deployFlows } from '../../scripts/lib/nodered';
import { ROOT } from '../../scripts/lib/package';
import { nodeRedDir, nodeRedVersion, startStack, type Stack } from './stack';

const DEMO = { user: 'demo', password: 'demo-password' };
const MQTT_SECRET = 'mqtt-Secret-4711';
const USERS: Record<string, string | string[]> = {
  admin: '*',
  // may edit gateway configurations but not deploy
  cfgonly: ['smsgw-config.read', 'smsgw-config.write'],
  // what Test connection asks for: the configuration's right and the right to deploy
  editor: ['flows.read', 'flows.write', 'smsgw-config.read', 'smsgw-config.write'],
  // may look at gateway configurations (the opt-out list's export among them) but change nothing
  reader: ['smsgw-config.read'],
};
const PASSWORD = 'login-pass-1';

type Json = Record<string, unknown>;

function bcryptHash(text: string): string {
  // Node-RED's own bcrypt (a dependency of its editor API), so the hash is one it reads
  const load = createRequire(require.resolve('bcryptjs', { paths: [nodeRedDir, ROOT] }));
  return (load('bcryptjs') as { hashSync(s: string, rounds: number): string }).hashSync(text, 8);
}

describe(`admin routes with adminAuth on a real Node-RED ${nodeRedVersion}`, function () {
  this.timeout(180_000);
  let stack: Stack;
  let url = '';
  const tokens: Record<string, string> = {};
  let capture: Server;
  let captureUrl = '';
  /** Every request (and proxy CONNECT) the capture server saw, with its body. */
  const seen: string[] = [];

  before(async function () {
    capture = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('latin1')));
      req.on('end', () => {
        seen.push(`${req.method} ${req.url} ${body}`);
        res.end('nothing here');
      });
    });
    capture.on('connect', (req: IncomingMessage, socket: Socket) => {
      seen.push(`CONNECT ${req.url} ${JSON.stringify(req.headers)}`);
      socket.destroy();
    });
    await new Promise<void>((resolve) => capture.listen(0, '127.0.0.1', resolve));
    captureUrl = `http://127.0.0.1:${(capture.address() as AddressInfo).port}`;

    const hash = bcryptHash(PASSWORD);
    stack = await startStack('admin-auth', undefined, {
      adminAuth: {
        type: 'credentials',
        users: Object.entries(USERS).map(([username, permissions]) => ({
          username,
          password: hash,
          permissions,
        })),
      },
    });
    url = stack.nodeRed.url;
    for (const username of Object.keys(USERS)) {
      const res = await fetch(`${url}/auth/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          client_id: 'node-red-admin',
          grant_type: 'password',
          scope: '',
          username,
          password: PASSWORD,
        }),
      });
      assert.equal(res.status, 200, `login of ${username}`);
      tokens[username] = ((await res.json()) as { access_token: string }).access_token;
    }
    const emulator = stack.emulator.url;
    await deployFlows(
      url,
      [
        { id: 'tab1', type: 'tab', label: 'admin routes' },
        {
          id: 'cfg',
          type: 'smsgw-config',
          name: 'Deployed gateway',
          baseUrl: emulator,
          service: 'gateway',
          transport: 'soap11',
          credentials: DEMO,
        },
        {
          id: 'nocreds',
          type: 'smsgw-config',
          name: 'Alarm gateway',
          baseUrl: emulator,
          service: 'gateway',
          transport: 'soap11',
        },
        // with an opt-out list (no replies read): its export and import need different rights
        {
          id: 'optcfg',
          type: 'smsgw-config',
          name: 'Opt-out gateway',
          baseUrl: emulator,
          service: 'gateway',
          transport: 'soap11',
          optOut: true,
          optOutKeywords: false,
          credentials: DEMO,
        },
        // another node type's credentials, which Test connection must never read (never connects: no user of it)
        {
          id: 'broker',
          type: 'mqtt-broker',
          name: 'an MQTT broker',
          broker: '127.0.0.1',
          port: '1',
          credentials: { user: 'mq', password: MQTT_SECRET },
        },
        // unnamed, on the configuration without an account: it warns at its first poll
        { id: 'hlr1', type: 'smsgw-hlr-results', z: 'tab1', gateway: 'nocreds', interval: 3600, wires: [[]] },
      ],
      { Authorization: `Bearer ${tokens.admin}` },
    );
  });
  after(async function () {
    await stack?.stop();
    await new Promise<void>((resolve) => (capture ? capture.close(() => resolve()) : resolve()));
  });
  beforeEach(() => {
    seen.length = 0;
  });

  const saved = (): Json => ({
    baseUrl: stack.emulator.url,
    service: 'gateway',
    transport: 'soap11',
    proxyUrl: '',
    tlsRejectUnauthorized: true,
    tlsCa: '',
    user: 'demo',
    password: '__PWRD__',
    proxyPassword: '',
  });
  const test = async (as: string, id: string, body: Json): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${url}/smsgw-config/${id}/test`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${tokens[as]}` },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: res.status === 200 ? ((await res.json()) as Json) : {} };
  };
  const nothingLeaked = (): void => {
    assert.deepEqual(seen, [], 'a request reached the address of the test');
  };

  it('a user who may edit gateway configurations but not deploy cannot make Node-RED send anything', async () => {
    for (const id of ['cfg', 'broker', 'not-deployed']) {
      for (const body of [
        { ...saved(), baseUrl: captureUrl },
        { ...saved(), baseUrl: captureUrl, password: 'typed' },
      ]) {
        assert.equal((await test('cfgonly', id, body)).status, 401, id);
      }
    }
    nothingLeaked();
  });

  const attacks: [string, string, () => Json][] = [
    [
      "an MQTT broker's password to an address of the user's choice",
      'broker',
      () => ({ baseUrl: captureUrl }),
    ],
    ["an MQTT broker's password through the saved base URL", 'broker', () => ({})],
    ["this configuration's password to another base URL", 'cfg', () => ({ baseUrl: captureUrl })],
    ["this configuration's password through another proxy", 'cfg', () => ({ proxyUrl: captureUrl })],
    [
      "this configuration's password with TLS checks turned off",
      'cfg',
      () => ({ tlsRejectUnauthorized: false }),
    ],
    [
      'stored credentials of a configuration that is not deployed',
      'not-deployed',
      () => ({ baseUrl: captureUrl }),
    ],
  ];
  for (const [what, id, change] of attacks) {
    it(`refuses to send ${what} (user with every right the route asks for)`, async () => {
      for (const as of ['editor', 'admin']) {
        const r = await test(as, id, { ...saved(), ...change() });
        assert.equal(r.status, 200);
        assert.equal(r.body.ok, false, JSON.stringify(r.body));
        assert.equal(r.body.code, 'CONFIG');
        assert.ok(!JSON.stringify(r.body).includes(MQTT_SECRET));
      }
      nothingLeaked();
    });
  }

  it("the editor's Test connection still works: a saved configuration (stored password) and unsaved values (typed)", async () => {
    const stored = await test('editor', 'cfg', saved());
    assert.equal(stored.body.ok, true, JSON.stringify(stored.body));
    assert.equal(typeof stored.body.balance, 'number');
    const unsaved = await test('editor', 'a-new-config-node', { ...saved(), ...DEMO });
    assert.equal(unsaved.body.ok, true, JSON.stringify(unsaved.body));
    // unsaved values may point anywhere, with the password the user typed
    const elsewhere = await test('editor', 'cfg', {
      ...saved(),
      baseUrl: captureUrl,
      gatewayNamespace: 'https://gateway.smsgw.example/',
      password: 'typed-for-there',
    });
    assert.equal(elsewhere.body.ok, false);
    assert.equal(seen.length, 1);
    assert.match(seen[0]!, /^POST \/gateway\/Information\.asmx .*typed-for-there/);
    seen.length = 0;
  });

  it('a configuration without an account: Test connection says so, nothing is sent', async () => {
    const requests = async (): Promise<number> =>
      ((await (await fetch(`${stack.emulator.url}/_emulator/requests`)).json()) as { requests: unknown[] })
        .requests.length;
    const before = await requests();
    const r = await test('editor', 'nocreds', { ...saved(), name: 'Alarm gateway', user: '', password: '' });
    assert.equal(r.body.code, 'CONFIG');
    assert.match(String(r.body.message), /^gateway 'Alarm gateway' has no user\/password/);
    assert.equal(await requests(), before);
  });

  it('GET smsgw/accounts says which deployed configurations lack an account (yes/no, never a value)', async () => {
    const res = await fetch(`${url}/smsgw/accounts`, {
      headers: { Authorization: `Bearer ${tokens.cfgonly}` },
    });
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.deepEqual(JSON.parse(text), { cfg: true, nocreds: false, optcfg: true });
    assert.ok(!text.includes('demo'));
    assert.equal((await fetch(`${url}/smsgw/accounts`)).status, 401);
  });

  it('the opt-out list: exported with the right to read a configuration, imported only with the right to change it', async () => {
    const as = (user: string, path: string, init: RequestInit = {}) =>
      fetch(`${url}/smsgw-config/optcfg/optout${path}`, {
        ...init,
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${tokens[user]}` },
      });
    const csv = JSON.stringify({ csv: 'number\n+4917012345678\n' });
    const refused = await as('reader', '/import', { method: 'POST', body: csv });
    assert.equal(refused.status, 401, 'a reader may not import');
    let exported = await as('reader', '/export');
    assert.equal(exported.status, 200);
    assert.equal(
      (await exported.text()).trim(),
      'number,state,since,source',
      'the refused import changed nothing',
    );
    const imported = await as('cfgonly', '/import', { method: 'POST', body: csv });
    assert.equal(imported.status, 200);
    assert.deepEqual(await imported.json(), { imported: 1 });
    exported = await as('reader', '/export');
    assert.match(await exported.text(), /^\+4917012345678,opted-out,[^,]+,import$/m);
  });

  it('the outbox routes answer for smsgw-config nodes only', async () => {
    const res = await fetch(`${url}/smsgw-config/broker/outbox`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${tokens.editor}` },
    });
    assert.equal(res.status, 404);
  });

  it('an unnamed node is named by its type\'s label in the log ("HLR results", not its id)', async () => {
    let log = '';
    for (let waited = 0; waited < 15_000 && !/Poll failed/.test(log); waited += 250) {
      await new Promise((r) => setTimeout(r, 250));
      log = readFileSync(stack.nodeRedLog, 'utf8');
    }
    assert.match(
      log,
      /\[warn\] \[smsgw-hlr-results:HLR results\] Poll failed .*gateway 'Alarm gateway' has no user\/password/,
    );
    assert.doesNotMatch(log, /\[smsgw-hlr-results:hlr1\]/);
  });
});
