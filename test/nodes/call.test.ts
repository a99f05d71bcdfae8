import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  DEMO,
  emulatedJob,
  flowWith,
  helper,
  loadFlow,
  nextMessage,
  send,
  sleep,
  startEnv,
  statuses,
  stopEnv,
  type Env,
  type FlowNode,
} from './helpers';

/** smsgw-call ("any operation"): client.invoke() from a flow, against the emulator. */
describe('nodes: smsgw-call (any operation)', () => {
  let env: Env;
  before(async () => {
    env = await startEnv();
    env.emu.control.setBalance('demo', 1_000_000);
  });
  after(() => stopEnv(env));
  afterEach(() => helper.unload());

  const callNode = (extra: Record<string, unknown>): FlowNode => ({
    id: 'n1',
    type: 'smsgw-call',
    gateway: 'cfg',
    service: 'information',
    operation: 'QueryAccountBalance',
    auth: 'auto',
    wires: [['out']],
    ...extra,
  });

  for (const transport of ['soap11', 'soap12', 'get', 'post']) {
    it(`${transport}: a send goes through the send gate (reference, typed answer); a query's answer is a plain object`, async () => {
      await loadFlow(
        // GET/POST over plain http need the config's consent (the emulator is on loopback).
        flowWith(
          env.emu.url,
          [
            callNode({ service: 'send', operation: 'SendSMS' }),
            callNode({
              id: 'n2',
              service: 'information',
              operation: 'QueryJobInfoByJobCaption',
              typed: true,
              wires: [['out2']],
            }),
          ],
          { transport, allowInsecure: true },
        ),
      );
      const soap = transport.startsWith('soap');
      const out = nextMessage('out');
      send('n1', {
        topic: 'kept',
        payload: {
          Caption: `call-${transport}`,
          Sender: 'Flow',
          // invoke()'s SOAP form of a list (a child element per item) and the plain list both go.
          Recipient: soap ? { string: ['+4917012345678'] } : ['+4917012345678'],
          SMSText: 'sent through any operation',
          SmsTyp: 'Standard',
          SendDate: '0001-01-01T00:00:00',
          ...(soap ? {} : { JobPriority: 0 }),
        },
      });
      const msg = await out;
      const answer = msg.payload as {
        StatusCode: string;
        Value: { Status: string; JobId: number; queued: boolean };
        caption: string;
        reference: string;
        recovered: boolean;
      };
      assert.equal(answer.StatusCode, 'Ok', JSON.stringify(answer));
      assert.equal(answer.Value.Status, 'Ok');
      assert.equal(typeof answer.Value.JobId, 'number', 'the typed client decodes the JobId');
      assert.equal(answer.Value.queued, false);
      assert.equal(msg.topic, 'kept');
      const job = emulatedJob(env, answer.Value.JobId);
      assert.equal(job?.text, 'sent through any operation');
      assert.deepEqual(job?.recipients, ['+4917012345678']);
      // As every send node: the reference in the Caption, the caption as sent in the answer.
      assert.match(answer.caption, new RegExp(`^call-${transport} #[a-z2-9]{10}$`));
      assert.equal(job?.caption, answer.caption);
      assert.equal(answer.recovered, false);
      assert.deepEqual(statuses('n1').at(-1), {
        fill: 'green',
        shape: 'dot',
        text: `JobId ${answer.Value.JobId}`,
      });
      // A read stays invoke()'s: the answer as a plain object, numbers typed on request.
      const out2 = nextMessage('out2');
      // (ASMX wants every key over GET/POST: the optional StartDate too.)
      send('n2', { payload: { Caption: answer.caption, StartDate: new Date(Date.now() - 3600_000) } });
      const info = (await out2).payload as {
        StatusCode: string;
        Value: { Status: string; Job: { Id: number } };
      };
      assert.equal(info.StatusCode, 'Ok', JSON.stringify(info));
      assert.equal(info.Value.Status, 'Ok');
      assert.equal(info.Value.Job.Id, answer.Value.JobId);
    });
  }

  it('the Output property gets the answer; msg.service and msg.operation override the dialog; lists', async () => {
    await loadFlow(flowWith(env.emu.url, [callNode({ output: 'result.answer', lists: 'Value' })]));
    const out = nextMessage('out');
    send('n1', { payload: {}, service: 'customer', operation: 'GetCustomerList', result: { id: 7 } });
    const msg = await out;
    assert.deepEqual(msg.payload, {});
    const result = msg.result as { id: number; answer: { StatusCode: string; Value: { Id: string }[] } };
    assert.equal(result.id, 7);
    assert.equal(result.answer.StatusCode, 'Ok');
    assert.ok(Array.isArray(result.answer.Value) && result.answer.Value.length > 0);
    assert.equal(typeof result.answer.Value[0]!.Id, 'string', 'text unless typed');
  });

  it('a refused login is no error here: the status turns yellow with the StatusCode', async () => {
    await loadFlow(flowWith(env.emu.url, [callNode({})]), { cfg: { user: 'demo', password: 'wrong' } });
    const out = nextMessage('out');
    send('n1', { payload: {} });
    const msg = await out;
    assert.equal((msg.payload as { StatusCode: string }).StatusCode, 'InvalidUser');
    assert.deepEqual(statuses('n1').at(-1), {
      fill: 'yellow',
      shape: 'dot',
      text: 'QueryAccountBalance: InvalidUser',
    });
  });

  it('Catch path: a fault goes to the Catch node as FAULT, with no password in the error', async () => {
    await loadFlow(flowWith(env.emu.url, [callNode({ operation: 'NoSuchOperation' })]));
    const caught = nextMessage('caught');
    send('n1', { payload: {} });
    const msg = await caught;
    const error = msg.error as {
      code: string;
      message: string;
      cause: { status: string; operation: string };
    };
    assert.equal(error.code, 'FAULT');
    assert.equal(error.cause.status, 'Client');
    assert.equal(error.cause.operation, 'NoSuchOperation');
    assert.match(error.message, /did not recognize the value of HTTP Header SOAPAction/);
    assert.ok(!JSON.stringify(msg).includes(DEMO.password));
    assert.equal(statuses('n1').at(-1)?.fill, 'red');
  });

  it('Catch path: a payload that is not an object is refused with VALIDATION, nothing is sent', async () => {
    await loadFlow(flowWith(env.emu.url, [callNode({})]));
    env.emu.requests.clear();
    const caught = nextMessage('caught');
    send('n1', { payload: 1732460000000 });
    const msg = await caught;
    assert.equal((msg.error as { code: string }).code, 'VALIDATION');
    assert.match((msg.error as { message: string }).message, /msg\.payload must be an object/);
    await sleep(50);
    assert.equal(env.emu.requests.list().filter((r) => r.transport !== 'wsdl').length, 0);
  });

  describe('against a fake gateway (an operation the emulator does not know)', () => {
    let server: Server;
    let url = '';
    const seen: { url: string; body: string; soapaction: string | undefined }[] = [];
    before(async () => {
      server = createServer((req, res) => {
        let body = '';
        req.on('data', (c: Buffer) => (body += c.toString()));
        req.on('end', () => {
          seen.push({ url: req.url ?? '', body, soapaction: req.headers.soapaction as string | undefined });
          res.writeHead(200, { 'content-type': 'text/xml; charset=utf-8' });
          res.end(
            '<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">' +
              '<soap:Body><GetTariffResponse xmlns="urn:tariff"><GetTariffResult><Price>0.079</Price></GetTariffResult></GetTariffResponse></soap:Body></soap:Envelope>',
          );
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(() => new Promise<void>((r) => server.close(() => r())));
    beforeEach(() => (seen.length = 0));

    const fake = (extra: Record<string, unknown>): FlowNode =>
      callNode({
        service: 'path',
        path: '/gateway/Tariff.asmx',
        operation: 'GetTariff',
        namespace: 'urn:tariff',
        ...extra,
      });

    it('automatic credentials: User/Password for an unknown operation; msg.soapHeaders as header blocks', async () => {
      await loadFlow(flowWith(url, [fake({ typed: true })]));
      const out = nextMessage('out');
      send('n1', { payload: { Country: 'DE' }, soapHeaders: { AuthHeader: { ApiKey: 'k-1' } } });
      const msg = await out;
      assert.deepEqual(msg.payload, { Price: 0.079 });
      const req = seen[0]!;
      assert.equal(req.url, '/gateway/Tariff.asmx');
      assert.equal(req.soapaction, '"urn:tariff/GetTariff"');
      assert.match(
        req.body,
        /<soap:Header><AuthHeader xmlns="urn:tariff"><ApiKey>k-1<\/ApiKey><\/AuthHeader><\/soap:Header>/,
      );
      assert.match(
        req.body,
        new RegExp(
          `<GetTariff xmlns="urn:tariff"><Country>DE</Country><User>demo</User><Password>${DEMO.password}</Password></GetTariff>`,
        ),
      );
    });

    it('credentials: none sends none; named puts them where the dialog says', async () => {
      await loadFlow(
        flowWith(url, [
          fake({ auth: 'none' }),
          fake({
            id: 'n2',
            auth: 'named',
            userParam: 'Login',
            passwordParam: 'Secret',
            wires: [['out2']],
          }),
        ]),
      );
      const out = nextMessage('out');
      const out2 = nextMessage('out2');
      send('n1', { payload: {} });
      await out;
      send('n2', { payload: {} });
      await out2;
      assert.match(seen[0]!.body, /<GetTariff xmlns="urn:tariff"\/>/);
      assert.match(seen[1]!.body, new RegExp(`<Login>demo</Login><Secret>${DEMO.password}</Secret>`));
    });
  });
  it('settings.js smsgwInvokeLimits bounds the answer (PARSE naming the limit); a bad value fails with CONFIG', async () => {
    const settings = { userDir: env.userDir, smsgwSendHlrPollInterval: 100 };
    try {
      // The balance answer: Envelope, Body, Response, Result, StatusCode, Value... more than 3 elements.
      helper.settings({ ...settings, smsgwInvokeLimits: { maxElements: 3 } } as Record<string, unknown>);
      await loadFlow(flowWith(env.emu.url, [callNode({})]));
      const caught = nextMessage('caught');
      send('n1', { payload: {} });
      const error = (await caught).error as { code: string; message: string };
      assert.equal(error.code, 'PARSE');
      assert.match(error.message, /more than 3 elements \(maxElements\)/);
      await helper.unload();
      helper.settings({ ...settings, smsgwInvokeLimits: { maxElements: 'many' } } as Record<string, unknown>);
      await loadFlow(flowWith(env.emu.url, [callNode({})]));
      const refused = nextMessage('caught');
      send('n1', { payload: {} });
      const config = (await refused).error as { code: string; message: string };
      assert.equal(config.code, 'CONFIG');
      assert.match(
        config.message,
        /settings\.js smsgwInvokeLimits: limits\.maxElements must be a positive whole number/,
      );
    } finally {
      helper.settings(settings as Record<string, unknown>);
    }
  });
});
