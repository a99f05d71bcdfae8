import assert from 'node:assert/strict';
import { RequestLog, type RawLogEntry } from '../../../src/emulator/wire/request-log';

const raw = (n: number, over: Partial<RawLogEntry> = {}): RawLogEntry => ({
  at: Date.UTC(2024, 0, 1, 0, 0, n),
  operation: 'SendSMS',
  service: 'send',
  transport: 'soap11',
  status: 200,
  durationMs: 1.5,
  prefix: '',
  body: Buffer.from(`<r n="${n}"><Password>pw${n}</Password></r>`, 'utf8'),
  response: `<ok n="${n}" />`,
  fault: undefined,
  ...over,
});

describe('emulator wire: request log', () => {
  it('keeps the newest entries oldest first, with text, time and masking as when written at once', () => {
    const log = new RequestLog(3);
    for (let n = 1; n <= 5; n++) log.addRaw(raw(n));
    const list = log.list();
    assert.deepEqual(
      list.map((e) => e.response),
      ['<ok n="3" />', '<ok n="4" />', '<ok n="5" />'],
    );
    assert.deepEqual(list[0], {
      time: '2024-01-01T00:00:03.000Z',
      operation: 'SendSMS',
      service: 'send',
      transport: 'soap11',
      status: 200,
      durationMs: 1.5,
      request: '<r n="3"><Password>***</Password></r>',
      response: '<ok n="3" />',
    });
  });

  it('returns the same entry objects on every read (the console tells new entries by identity)', () => {
    const log = new RequestLog(2);
    log.addRaw(raw(1));
    const [first] = log.list();
    log.addRaw(raw(2, { fault: 'truncate', prefix: 'POST /x\n' }));
    const [again, second] = log.list();
    assert.equal(again, first);
    assert.equal(second!.fault, 'truncate');
    assert.equal(second!.request, 'POST /x\n<r n="2"><Password>***</Password></r>');
    log.addRaw(raw(3));
    assert.equal(log.list()[0], second);
  });

  it('mixes entries added whole and raw, clears, and keeps nothing with capacity 0', () => {
    const log = new RequestLog(4);
    log.add(rawEntry('GET /a?x=1&password=x'));
    log.addRaw(raw(1));
    assert.equal(log.list()[0]!.request, 'GET /a?x=1&password=***');
    assert.equal(log.list().length, 2);
    log.clear();
    assert.deepEqual(log.list(), []);
    log.addRaw(raw(2));
    assert.equal(log.list().length, 1);
    const none = new RequestLog(0);
    none.addRaw(raw(1));
    assert.deepEqual(none.list(), []);
  });
});

function rawEntry(request: string) {
  return {
    time: '2024-01-01T00:00:00.000Z',
    operation: null,
    service: null,
    transport: 'get' as const,
    status: 200,
    durationMs: 0,
    request,
    response: '',
  };
}
