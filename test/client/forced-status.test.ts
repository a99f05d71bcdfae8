import assert from 'node:assert/strict';
import { COMPLEX_TYPES, OPERATIONS } from '../../src/catalogue';
import type { OperationDef } from '../../src/catalogue/types';
import { GatewayClient, methodName, type Transport } from '../../src/client';
import { startEmulator, type RunningEmulator, type StatusEnum } from '../../src/emulator';
import { GatewayError } from '../../src/errors';
import { sampleParams } from './sample-params';

// The statuses the emulator's own rules never give, forced through its control API: what each typed method
// rejects with (code, status, message), over every transport, and that nothing was sent.

const USER = 'demo';
const PASSWORD = 'demo-password';
const TRANSPORTS: Transport[] = ['soap11', 'soap12', 'get', 'post'];

const typedOps = OPERATIONS.filter((op) => op.service !== 'legacy');
const byName = (...names: string[]): OperationDef[] => typedOps.filter((op) => names.includes(op.name));

/** The typed operations whose Value (a class) has a field of this enumeration, read from the catalogue. */
function carrying(enumName: StatusEnum): OperationDef[] {
  return typedOps.filter((op) => {
    const t = op.result.type;
    const envelope = t.kind === 'list' ? t.item : t;
    if (envelope.kind !== 'complex') return false;
    const value = COMPLEX_TYPES[envelope.name]!.fields.find((f) => f.name === 'Value')!.type;
    return (
      value.kind === 'complex' &&
      COMPLEX_TYPES[value.name]!.fields.some((f) => f.type.kind === 'enum' && f.type.name === enumName)
    );
  });
}

/** Each status, the operations whose answer carries it, and the GatewayError it must become. */
const CASES: Array<{ enum: StatusEnum; values: string[]; ops: OperationDef[]; code: string; text: string }> =
  [
    {
      enum: 'LoginStatus',
      values: ['None', 'DatabaseError'],
      ops: typedOps,
      code: 'AUTH',
      text: 'login refused',
    },
    {
      enum: 'CreateStatus',
      values: ['None', 'NoDataFound', 'NoUrlFound', 'LoginError', 'UnknowError', 'DatabaseError'],
      ops: carrying('CreateStatus'),
      code: 'REJECTED',
      text: 'refused',
    },
    {
      enum: 'ParseStatus',
      values: ['MMSXMLParseError', 'MMSPictureNOTReadable'],
      ops: carrying('ParseStatus'),
      code: 'REJECTED',
      text: 'refused',
    },
  ];

describe('GatewayClient: statuses the emulator is told to answer with', function () {
  this.timeout(60_000);
  let emu: RunningEmulator;
  before(async () => {
    emu = await startEmulator({ user: USER, password: PASSWORD, balance: 100_000, duplicateWindowMs: 0 });
  });
  after(() => emu.close());
  afterEach(() => emu.statuses.clear());

  it('covers each operation whose answer carries the enumeration (from the catalogue)', () => {
    assert.equal(CASES[0]!.ops.length, typedOps.length);
    // Spot checks of the derivation: SendSMS carries a CreateStatus, SendUDH a ParseStatus, a query neither.
    assert.ok(CASES[1]!.ops.some((op) => op.name === 'SendSMS'));
    assert.ok(CASES[2]!.ops.some((op) => op.name === 'SendUDH'));
    assert.ok(!CASES[1]!.ops.concat(CASES[2]!.ops).some((op) => op.name === 'QueryJobs'));
  });

  for (const transport of TRANSPORTS) {
    for (const c of CASES) {
      for (const value of c.values) {
        it(`${transport}: ${c.enum} ${value} rejects every typed method with ${c.code}, status ${value}`, async () => {
          const client = new GatewayClient({ baseUrl: emu.url, user: USER, password: PASSWORD, transport });
          try {
            const jobs = emu.state.jobs().length;
            for (const op of c.ops) {
              emu.statuses.add({ enum: c.enum, value, operation: op.name });
              const group = client[op.service] as unknown as Record<string, (p: unknown) => Promise<unknown>>;
              const err = await group[methodName(op)]!(sampleParams(op, `forced-${value}`)).then(
                (v) => v,
                (e: unknown) => e,
              );
              assert.ok(err instanceof GatewayError, `${op.name}: resolved ${JSON.stringify(err)}`);
              assert.equal(err.code, c.code, op.name);
              assert.equal(err.status, value, op.name);
              assert.equal(err.operation, op.name);
              assert.equal(err.message, `${op.name}: ${c.text}: ${value}`);
              assert.equal(err.ambiguous, false, `${op.name}: the service answered, nothing is in doubt`);
            }
            assert.deepEqual(emu.statuses.list(), [], 'each call used its status');
            assert.equal(emu.state.jobs().length, jobs, 'no job was created');
          } finally {
            await client.close();
          }
        });
      }
    }
  }

  it('call() returns the forced answer as it came (no error)', async () => {
    const client = new GatewayClient({ baseUrl: emu.url, user: USER, password: PASSWORD });
    try {
      emu.statuses.add({ enum: 'CreateStatus', value: 'DatabaseError' });
      const op = byName('SendSMS')[0]!;
      const raw = await client.call('send', 'SendSMS', sampleParams(op, 'raw') as never);
      assert.deepEqual(raw, { StatusCode: 'Ok', Value: { Status: 'DatabaseError', JobId: 0 } });
      emu.statuses.add({ enum: 'LoginStatus', value: 'None' });
      const balance = await client.call('information', 'QueryAccountBalance');
      assert.equal(balance.StatusCode, 'None');
    } finally {
      await client.close();
    }
  });
});
