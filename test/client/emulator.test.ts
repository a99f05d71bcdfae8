import assert from 'node:assert/strict';
import { OPERATIONS } from '../../src/catalogue';
import type { OperationDef } from '../../src/catalogue/types';
import { GatewayClient, methodName, type Transport } from '../../src/client';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { GatewayError, isGatewayError } from '../../src/errors';
import { sampleParams as sample } from './sample-params';

const USER = 'demo';
const PASSWORD = 'demo-password';
let customerId = 0;
const sampleParams = (op: OperationDef, caption: string): Record<string, unknown> =>
  sample(op, caption, customerId);

function checkValue(op: OperationDef, value: unknown): void {
  const where = `${op.service}/${op.name}`;
  if (op.service === 'legacy') {
    const r = value as { raw: unknown; ok?: boolean; balance?: unknown; records?: unknown };
    assert.equal(typeof r.raw, 'string', where);
    if (op.result.legacy === 'send') assert.equal(r.ok, true, `${where}: ${String(r.raw)}`);
    if (op.result.legacy === 'balance') assert.equal(typeof r.balance, 'number', where);
    if (op.result.legacy !== 'send' && op.result.legacy !== 'balance')
      assert.ok(Array.isArray(r.records), where);
    return;
  }
  if (op.sends) {
    const list = Array.isArray(value) ? value : [value];
    assert.ok(list.length > 0, where);
    for (const v of list as { queued: unknown }[]) assert.equal(v.queued, false, where);
    if (op.name !== 'SendUDH') for (const v of list as { JobId: number }[]) assert.ok(v.JobId > 0, where);
    return;
  }
  assert.ok(value !== undefined, where);
}

const TRANSPORTS: Transport[] = ['soap11', 'soap12', 'get', 'post'];

describe('GatewayClient against the emulator', function () {
  this.timeout(60_000);
  let emu: RunningEmulator;

  before(async () => {
    emu = await startEmulator({ user: USER, password: PASSWORD, balance: 100_000, duplicateWindowMs: 0 });
  });
  after(async () => {
    await emu.close();
  });

  for (const transport of TRANSPORTS) {
    describe(`over ${transport}`, () => {
      let client: GatewayClient;
      const caption = `cap-${transport}`;
      before(async () => {
        client = new GatewayClient({ baseUrl: emu.url, user: USER, password: PASSWORD, transport });
        // A job with this caption first (as given: no reference), so that the caption queries find something.
        const seeder = new GatewayClient({
          baseUrl: emu.url,
          user: USER,
          password: PASSWORD,
          transport,
          reference: false,
        });
        await seeder.send.sendSms(
          sampleParams(
            OPERATIONS.find((o) => o.name === 'SendSMS')!,
            caption,
          ) as never,
        );
        await seeder.close();
        customerId = (await client.customer.getCustomerList())[0]?.Id ?? 0;
      });
      after(() => client.close());

      for (const op of OPERATIONS) {
        it(`${op.service}.${methodName(op)} resolves; call() returns the raw answer`, async () => {
          const group = client[op.service] as unknown as Record<string, (p: unknown) => Promise<unknown>>;
          const params = sampleParams(op, caption);
          let value: unknown;
          try {
            value = await group[methodName(op)]!(params);
          } catch (e) {
            assert.fail(
              `${op.name}: ${isGatewayError(e) ? `${e.code} ${e.message} ${e.body ?? ''}` : String(e)}`,
            );
          }
          checkValue(op, value);
          if (!op.sends) {
            const raw = (await client.call(op.service, op.name as never, params as never)) as unknown;
            if (op.service === 'legacy') assert.equal(typeof (raw as { raw: unknown }).raw, 'string');
            else assert.equal((raw as { StatusCode: unknown }).StatusCode, 'Ok');
          }
        });
      }

      it('maps a wrong password to AUTH (typed) and a legacy error string to REJECTED', async () => {
        const bad = new GatewayClient({ baseUrl: emu.url, user: USER, password: 'wrong-pw', transport });
        try {
          const e1 = await bad.information.queryAccountBalance().catch((e: unknown) => e);
          assert.ok(
            e1 instanceof GatewayError && e1.code === 'AUTH' && e1.status === 'InvalidUser',
            String(e1),
          );
          const raw = await bad.call('information', 'QueryAccountBalance');
          assert.equal(raw.StatusCode, 'InvalidUser');
          const e2 = await bad.legacy
            .sendSimpleSms({ Recipient: '+4917012345678', SMSText: 'x' })
            .catch((e: unknown) => e);
          assert.ok(e2 instanceof GatewayError && e2.code === 'REJECTED', String(e2));
          assert.ok(!JSON.stringify(e2).includes('wrong-pw'));
        } finally {
          await bad.close();
        }
      });
    });
  }

  it('resolves a send without credits with queued: true and the JobId', async () => {
    const client = new GatewayClient({ baseUrl: emu.url, user: USER, password: PASSWORD });
    try {
      emu.control.setBalance(USER, 0);
      const r = await client.send.sendSms(
        sampleParams(
          OPERATIONS.find((o) => o.name === 'SendSMS')!,
          'queued',
        ) as never,
      );
      assert.equal(r.queued, true);
      assert.equal(r.Status, 'JobIsQueuedInsufficientCredits');
      assert.ok(r.JobId > 0);
    } finally {
      emu.control.setBalance(USER, 100_000);
      await client.close();
    }
  });

  it('reads the namespace from the WSDL once per service path for many concurrent first calls', async () => {
    emu.requests.clear();
    const client = new GatewayClient({ baseUrl: emu.url, user: USER, password: PASSWORD, transport: 'post' });
    try {
      const results = await Promise.all([
        ...Array.from({ length: 8 }, () => client.information.queryAccountBalance()),
        ...Array.from({ length: 8 }, () => client.legacy.queryBalance2()),
      ]);
      assert.equal(results.length, 16);
      const wsdl = emu.requests.list().filter((e) => e.transport === 'wsdl');
      assert.equal(wsdl.length, 2, JSON.stringify(wsdl.map((e) => e.request)));
      assert.equal(emu.requests.list().filter((e) => e.transport === 'post').length, 16);
    } finally {
      await client.close();
    }
  });

  it('reads the balance the emulator holds', async () => {
    const client = new GatewayClient({
      baseUrl: emu.url,
      user: USER,
      password: PASSWORD,
      transport: 'soap12',
    });
    try {
      // Jobs of earlier tests still on their way (the queued one is released by its finally) are charged when
      // sent: finish them first, or one sent between setBalance and the query takes its credits (seen under load).
      emu.control.finishJobs();
      emu.control.setBalance(USER, 1234.5);
      assert.equal(await client.information.queryAccountBalance(), 1234.5);
      assert.equal((await client.legacy.queryBalance2()).balance, 1234.5);
    } finally {
      emu.control.setBalance(USER, 100_000);
      await client.close();
    }
  });
});
