import assert from 'node:assert/strict';
import type { GatewayClient, ParamsOf, ResultOf, ValueOf } from '../../src/client';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(ok: Equal<A, B>): Equal<A, B> => ok;

/**
 * Compile-time checks of the generated types (tsc fails on a wrong line; the @ts-expect-error lines fail when
 * the mistake they show is no longer caught). The function is never called: it only has to type-check.
 */
function typeChecks(client: GatewayClient): void {
  same<ValueOf<'send', 'SendSMS'>['queued'], boolean>(true);
  same<ValueOf<'send', 'SendSMS'>['JobId'], number>(true);
  same<ValueOf<'information', 'QueryAccountBalance'>, number>(true);
  same<
    ResultOf<'information', 'QueryAccountBalance'>['StatusCode'],
    'None' | 'Ok' | 'InvalidUser' | 'AccountLocked' | 'IPLock' | 'DatabaseError'
  >(true);
  same<
    ParamsOf<'send', 'SendMobileOrFixlineSMS'>['MobileSMSType'],
    'HighQuality' | 'HighQualityLong' | undefined
  >(true);
  same<Awaited<ReturnType<typeof client.legacy.getJobs1>>['records'][number]['cost'], number>(true);

  const send = {
    Caption: 'c',
    Sender: 's',
    Recipient: ['1'],
    SMSText: 't',
    SmsTyp: 'Standard',
    SendDate: null,
  } as const;
  void client.send.sendSms(send);
  void client.call('send', 'SendSMS', send);
  // @ts-expect-error an SmsType that does not exist
  void client.send.sendSms({ ...send, SmsTyp: 'Fast' });
  // @ts-expect-error a required parameter missing
  void client.send.sendSms({
    Caption: 'c',
    Sender: 's',
    Recipient: ['1'],
    SmsTyp: 'Standard',
    SendDate: null,
  });
  // @ts-expect-error an operation of another service
  void client.call('information', 'SendSMS', {});
  // @ts-expect-error a method that does not exist (names are camelCase of the operation)
  void client.send.sendSMS(send);
  void client.information.queryReceivedNewSms();
}

describe('generated client types', () => {
  it('type-check (see typeChecks: tsc -p tsconfig.json fails when they are wrong)', () => {
    assert.equal(typeof typeChecks, 'function');
  });
});
