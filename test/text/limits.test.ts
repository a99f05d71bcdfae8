import assert from 'node:assert/strict';
import { findOperation } from '../../src/catalogue';
import {
  checkSegments,
  DEFAULT_SEGMENT_LIMITS,
  legacySmsTypeInfo,
  lengthMessage,
  sendTypeInfo,
  smsTypeInfo,
} from '../../src/text';

const op = (service: 'send' | 'legacy', name: string) => findOperation(service, name)!;
const gsm = (n: number): string => 'a'.repeat(n);

describe('text: segment limits per SMS type', () => {
  it('says what is wrong and what would fit, as a user needs it', () => {
    const p = checkSegments(gsm(1993), smsTypeInfo('Standard'), DEFAULT_SEGMENT_LIMITS);
    assert.ok(p);
    assert.equal(
      lengthMessage(p),
      '1,993 characters, 14 segments: Standard allows 1 segment; StandardLong allows up to 10',
    );
    const long = checkSegments(gsm(1993), smsTypeInfo('StandardLong'), DEFAULT_SEGMENT_LIMITS)!;
    assert.equal(lengthMessage(long), '1,993 characters, 14 segments: StandardLong allows up to 10');
    const flash = checkSegments(gsm(161), smsTypeInfo('Flash'), DEFAULT_SEGMENT_LIMITS)!;
    assert.equal(lengthMessage(flash), '161 characters, 2 segments: Flash allows 1 segment');
  });

  it('takes a text that fits exactly, and counts UCS-2 and extension characters', () => {
    const limits = DEFAULT_SEGMENT_LIMITS;
    assert.equal(checkSegments(gsm(160), smsTypeInfo('Standard'), limits), undefined);
    assert.equal(checkSegments(gsm(153 * 10), smsTypeInfo('HighQualityLong'), limits), undefined);
    assert.ok(checkSegments(gsm(153 * 10 + 1), smsTypeInfo('PSTNFixedLine'), limits));
    assert.equal(checkSegments('ü'.repeat(70), smsTypeInfo('Standard'), limits), undefined);
    const ucs = checkSegments('Ω€'.repeat(35) + 'ж', smsTypeInfo('Standard'), limits)!;
    assert.deepEqual([ucs.encoding, ucs.characters, ucs.segments], ['UCS-2', 71, 2]);
    // 80 euro signs are 160 septets: one segment; one more character is two
    assert.equal(checkSegments('€'.repeat(80), smsTypeInfo('Standard'), limits), undefined);
    assert.equal(checkSegments('€'.repeat(80) + 'a', smsTypeInfo('Standard'), limits)!.segments, 2);
  });

  it('follows the configured limits; 0 turns a check off', () => {
    assert.equal(checkSegments(gsm(300), smsTypeInfo('Standard'), { single: 2, long: 10 }), undefined);
    const p = checkSegments(gsm(500), smsTypeInfo('Standard'), { single: 2, long: 3 })!;
    assert.equal(
      lengthMessage(p),
      '500 characters, 4 segments: Standard allows up to 2; StandardLong allows up to 3',
    );
    assert.equal(checkSegments(gsm(5000), smsTypeInfo('Standard'), { single: 0, long: 10 }), undefined);
    const noLonger = checkSegments(gsm(200), smsTypeInfo('Standard'), { single: 1, long: 0 })!;
    assert.equal(lengthMessage(noLonger), '200 characters, 2 segments: Standard allows 1 segment');
  });

  it('places the older service codes by their JobType position (docs/assumptions.md); unknown ones unchecked', () => {
    assert.deepEqual(legacySmsTypeInfo(0), {
      name: 'SmsTyp 6 (Standart)',
      long: false,
      longer: 'SmsTyp 17 (StandartLongSMS)',
    });
    assert.equal(legacySmsTypeInfo('17')?.long, true);
    assert.equal(legacySmsTypeInfo(18)?.longer, 'SmsTyp 19 (HighQualityLong)');
    assert.equal(legacySmsTypeInfo(23)?.long, true);
    assert.equal(legacySmsTypeInfo('StandardLong')?.long, true);
    assert.equal(legacySmsTypeInfo('Festnetz')?.long, true);
    for (const unknown of [3, 7, 25, 99, 'Fast', '']) assert.equal(legacySmsTypeInfo(unknown), undefined);
  });

  it('finds the type a send asks for', () => {
    assert.equal(sendTypeInfo(op('send', 'SendSMS'), {})?.name, 'Standard');
    assert.equal(sendTypeInfo(op('send', 'SendSimpleSMS'), { SmsTyp: 'Flash' })?.name, 'Flash');
    assert.equal(sendTypeInfo(op('send', 'SendMobileOrFixlineSMS'), {})?.name, 'HighQuality');
    assert.equal(
      sendTypeInfo(op('send', 'SendMobileOrFixlineSMS'), { MobileSMSType: 'HighQualityLong' })?.name,
      'HighQualityLong',
    );
    assert.equal(sendTypeInfo(op('send', 'SendUDH'), {}), undefined);
    assert.equal(sendTypeInfo(op('legacy', 'SendText'), { SmsTyp: '17' })?.long, true);
    assert.equal(sendTypeInfo(op('legacy', 'SMSCR'), { SmsTyp: 18 })?.name, 'SmsTyp 18 (HighQuality)');
    assert.equal(sendTypeInfo(op('legacy', 'SendSimpleSMS'), {}), undefined);
  });
});
