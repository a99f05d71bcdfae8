/**
 * The spending guard, framework-free: exact counting under concurrency (reserve, confirm,
 * release), warnings and limit events once per window, the critical reserve, the cost of a send, and counts
 * that survive a restart in their file (written durably, mode 600; a damaged file is copied aside and said).
 */
import assert from 'node:assert/strict';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { findOperation } from '../../src/catalogue';
import { Budget, BudgetError, type BudgetEvent } from '../../src/reliability/budget';
import { sendCost } from '../../src/reliability/budget-cost';
import { FileLedger, type FileLedgerOptions } from '../../src/reliability/budget-file';
import { Manifest, type StateDamage } from '../../src/store';

const op = (service: 'send' | 'legacy', name: string) => findOperation(service, name)!;

describe('budget: the spending guard', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'smsgw-budget-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const open = (id = 'cfg', options: FileLedgerOptions = {}): Promise<FileLedger> =>
    FileLedger.open(dir, id, options);
  const countFile = (id = 'cfg'): string => path.join(dir, 'smsgw-state', `budget.${id}.json`);
  beforeEach(() => Manifest.forgetAll());

  it('32 concurrent sends near the limit: exactly as many as fit are counted, the rest refused (file ledger)', async () => {
    const budget = new Budget({ limits: { day: 50 } }, await open());
    for (let i = 0; i < 40; i++) await budget.reserve(`pre${i}`, 1);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 32 }, (_, i) => budget.reserve(`k${i}`, 1 + (i % 2))),
    );
    const reserved = outcomes.filter((o) => o.status === 'fulfilled').length;
    const refused = outcomes.filter((o) => o.status === 'rejected');
    assert.ok(refused.every((o) => (o.reason as BudgetError).code === 'BUDGET'));
    const [day] = await budget.windows(true);
    assert.ok(day!.count <= 50, `counted ${day!.count}`);
    // Costs 1 and 2 alternate, in order: 40 + 1 + 2 + 1 + 2 + 1 + 2 + 1 = 50, then only refusals.
    assert.equal(day!.count, 50);
    assert.equal(reserved, 7);
    assert.equal(refused.length, 25);
  });

  it('a reservation is confirmed (stays), released (taken back) or found again under its key (not counted twice)', async () => {
    const budget = new Budget({ limits: { hour: 10, day: 10, month: 10 } }, await open());
    await budget.reserve('a', 3);
    await budget.reserve('b', 3);
    budget.settle('a', 'sent');
    budget.settle('b', 'notSent');
    const again = await budget.reserve('c', 4);
    assert.equal(again.result, 'reserved');
    // An unknown outcome (a lost answer) of an outbox entry stays counted and pending: its next attempt
    // finds it instead of counting again.
    budget.settle('c', 'unknown', true);
    assert.equal((await budget.reserve('c', 4)).result, 'pending');
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(
      (await budget.windows(true)).map((w) => w.count),
      [7, 7, 7],
    );
  });

  it('the warning fires once per window at its share (40 of 50), the limit event once at the first refusal', async () => {
    const budget = new Budget({ limits: { day: 50 } }, await open());
    const events: BudgetEvent[] = [];
    budget.on('event', (e) => events.push(e));
    for (let i = 0; i < 60; i++) await budget.reserve(`k${i}`, 1).catch(() => undefined);
    assert.deepEqual(
      events.map((e) => [e.event, e.window, e.count, e.limit, e.percent]),
      [
        ['warning', 'day', 40, 50, 80],
        ['limit', 'day', 50, 50, 100],
      ],
    );
    // Not again after a restart in the same window: the flags are stored with the counts.
    await budget.close();
    const again = new Budget({ limits: { day: 50 } }, await open());
    again.on('event', (e) => events.push(e));
    await again.reserve('x', 1).catch(() => undefined);
    assert.equal(events.length, 2);
  });

  it('a critical send may use the reserve above the limit; a send larger than limit and reserve never fits', async () => {
    const budget = new Budget({ limits: { day: 5 }, reserve: 2 }, await open());
    for (let i = 0; i < 5; i++) await budget.reserve(`k${i}`, 1);
    await assert.rejects(budget.reserve('n', 1), { code: 'BUDGET' });
    await budget.reserve('c1', 1, { critical: true });
    await budget.reserve('c2', 1, { critical: true });
    const over = (await budget.reserve('c3', 1, { critical: true }).catch((e: unknown) => e)) as BudgetError;
    assert.equal(over.code, 'BUDGET');
    assert.match(
      over.message,
      /daily limit of 5 and the reserve of 2 for critical messages reached \(7 counted/,
    );
    // Too large for the limit even when empty: refused, never held (holding it would keep it forever).
    const fresh = new Budget({ limits: { day: 5 }, hold: true }, await open('other.json'));
    const huge = (await fresh.reserve('h', 6, { hold: true }).catch((e: unknown) => e)) as BudgetError;
    assert.equal(huge.code, 'BUDGET');
    assert.equal(huge.held, false);
    assert.match(huge.message, /larger than the daily limit of 5.*can never fit/);
    // Within the limit but over it now: held until the reset.
    for (let i = 0; i < 5; i++) await fresh.reserve(`f${i}`, 1);
    const held = (await fresh.reserve('f5', 1, { hold: true }).catch((e: unknown) => e)) as BudgetError;
    assert.equal(held.held, true);
    assert.ok(held.retryAt! > Date.now());
    assert.match(held.message, /held in the outbox until then/);
    // On msg.error.cause (toJSON) a flow reads the window, limit, count and the reset.
    assert.deepEqual((held.toJSON().budget as Record<string, unknown>).window, 'day');
    assert.equal(typeof held.toJSON().retryAt, 'string');
  });

  it('counts survive a restart: the file (mode 600 in a 700 directory) holds counts, flags and pending reservations', async () => {
    const file = countFile();
    const first = new Budget({ limits: { day: 50, month: 500 } }, await open());
    for (let i = 0; i < 30; i++) await first.reserve(`k${i}`, 1);
    // No close: a kill -9 after the reservations resolved loses nothing of them.
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(path.dirname(file)).mode & 0o777, 0o700);
    const second = new Budget({ limits: { day: 50, month: 500 } }, await open());
    assert.deepEqual(
      (await second.windows(true)).map((w) => w.count),
      [30, 30],
    );
    assert.equal((await second.reserve('k29', 1)).result, 'pending');
    await second.reserve('new', 1);
    assert.equal((await second.windows(true))[0]!.count, 31);
  });

  it('a release is written with the next reservation or at close: a send costs one write', async () => {
    const first = new Budget({ limits: { day: 50 } }, await open());
    await first.reserve('a', 1);
    await first.reserve('b', 1);
    first.settle('a', 'sent');
    first.settle('b', 'notSent');
    await first.close();
    const second = new Budget({ limits: { day: 50 } }, await open());
    assert.equal((await second.windows(true))[0]!.count, 1);
    // Confirmed: not pending any more (a reservation under the same key counts anew).
    assert.equal((await second.reserve('a', 1)).result, 'reserved');
  });

  it('opening narrows a wider directory to 700 and removes the temp file of a write a crash cut short', async () => {
    const state = path.join(dir, 'smsgw-state');
    mkdirSync(state, { mode: 0o755 });
    chmodSync(state, 0o755);
    writeFileSync(path.join(state, 'budget.cfg.json.tmp-999999999-1'), '{"version":1,"ho');
    const budget = new Budget({ limits: { day: 5 } }, await open());
    await budget.reserve('a', 1);
    assert.equal(statSync(state).mode & 0o777, 0o700);
    assert.deepEqual(readdirSync(state), ['budget.cfg.json']);
    assert.equal(statSync(countFile()).mode & 0o777, 0o600);
  });

  it('a damaged count file: copied aside and told, the counts lost: every send refused until a person confirms', async () => {
    const first = new Budget({ limits: { day: 10 } }, await open());
    for (let i = 0; i < 3; i++) await first.reserve(`a${i}`, 1);
    await first.close();
    // One byte changed: found by its checksum, never read as another count.
    const text = readFileSync(countFile(), 'utf8');
    writeFileSync(countFile(), text.replace('"count":3', '"count":1'));
    const damaged: StateDamage[] = [];
    const budget = new Budget(
      { limits: { day: 10 } },
      await open('cfg', { onDamage: (d) => damaged.push(d) }),
    );
    assert.equal(damaged.length, 1);
    assert.equal(damaged[0]!.kind, 'damaged');
    const aside = readdirSync(path.dirname(countFile())).find((f) =>
      f.startsWith('budget.cfg.json.damaged-'),
    );
    assert.ok(aside, 'copied aside');
    assert.equal(statSync(path.join(path.dirname(countFile()), aside)).mode & 0o777, 0o600);
    const lost: unknown[] = [];
    budget.on('lost', (l) => lost.push(l));
    await assert.rejects(budget.reserve('b', 1), (e: BudgetError) => {
      assert.equal(e.code, 'BUDGET');
      assert.match(e.message, /counts were lost \(the count file was damaged .*budget\.cfg\.json\).*confirm/);
      return true;
    });
    assert.equal(lost.length, 1, 'the loss is told once');
    assert.deepEqual(
      (await budget.windows(true)).map((w) => w.count),
      [10],
      'the day counts as spent up to its limit',
    );
  });

  it('a count file deleted while Node-RED was down: the counts lost, not a fresh start (on main: 20 sent against 10)', async () => {
    const first = new Budget({ limits: { day: 10 } }, await open());
    for (let i = 0; i < 10; i++) await first.reserve(`a${i}`, 1);
    await assert.rejects(first.reserve('over', 1), /daily limit of 10 reached/);
    await first.close();
    rmSync(countFile());
    Manifest.forgetAll();
    const damaged: StateDamage[] = [];
    const budget = new Budget(
      { limits: { day: 10 } },
      await open('cfg', { onDamage: (d) => damaged.push(d) }),
    );
    let sent = 0;
    for (let i = 0; i < 10; i++)
      await budget.reserve(`b${i}`, 1).then(
        () => sent++,
        () => undefined,
      );
    assert.equal(sent, 0, 'nothing more billed the same day');
    assert.deepEqual(
      damaged.map((d) => [d.kind, d.file]),
      [['missing', countFile()]],
    );
    // A restart before anyone confirmed still refuses: the loss is on disk.
    await budget.close();
    Manifest.forgetAll();
    const again = new Budget({ limits: { day: 10 } }, await open());
    await assert.rejects(again.reserve('c', 1), /counts were lost \(the count file is missing/);
    // A person confirms: counted from there on, and a restart does not ask again.
    const confirmed: unknown[] = [];
    again.on('confirmed', (c) => confirmed.push(c));
    await again.confirmLost('editor (admin)');
    assert.equal(confirmed.length, 1);
    assert.equal((await again.reserve('d', 1)).result, 'reserved');
    await again.close();
    const third = new Budget({ limits: { day: 10 } }, await open());
    assert.equal(third.lost, undefined);
    assert.equal((await third.reserve('e', 1)).result, 'reserved');
    assert.equal((await third.windows(true))[0]!.count, 2);
  });

  it('a clock set back keeps the window: 10 sent at 00:30, a restart at 22:30 the day before sends none (on main: 10 more)', async () => {
    const t0 = new Date(2024, 4, 3, 0, 30).getTime();
    const clock = { t: t0, now: () => clock.t };
    const first = new Budget({ limits: { day: 10, hour: 100 } }, await open(), clock);
    for (let i = 0; i < 10; i++) await first.reserve(`a${i}`, 1);
    await first.close();
    clock.t = new Date(2024, 4, 2, 22, 30).getTime();
    const budget = new Budget({ limits: { day: 10, hour: 100 } }, await open(), clock);
    let sent = 0;
    for (let i = 0; i < 10; i++)
      await budget.reserve(`b${i}`, 1).then(
        () => sent++,
        () => undefined,
      );
    assert.equal(sent, 0);
    const windows = await budget.windows(true);
    assert.deepEqual(
      windows.map((w) => [w.window, w.count]),
      [
        ['hour', 10],
        ['day', 10],
      ],
      'the hour keeps the counts "from the future" too',
    );
    // Once the clock passes the day counted in, the next day opens as usual.
    clock.t = new Date(2024, 4, 4, 0, 1).getTime();
    assert.equal((await budget.reserve('c', 1)).result, 'reserved');
  });

  it('a count that cannot be stored refuses the send (not counted, nothing sent)', async () => {
    const budget = new Budget({ limits: { day: 5 } }, await open());
    await budget.reserve('a', 1);
    // The directory is gone and a file stands in its place: no write can succeed (also as root).
    rmSync(path.join(dir, 'smsgw-state'), { recursive: true });
    writeFileSync(path.join(dir, 'smsgw-state'), 'not a directory');
    await assert.rejects(budget.reserve('b', 1), /cannot save .*budget\.cfg\.json: (ENOTDIR|EEXIST)/);
    assert.equal((await budget.windows(true))[0]!.count, 1);
  });

  it('a send costs segments x recipients (text, long text, UCS-2, binary, HLR, recipient lists and bytes)', () => {
    const long = 'x'.repeat(161);
    assert.equal(sendCost(op('send', 'SendSMS'), { Recipient: ['+491', '+492', '+493'], SMSText: 'hi' }), 3);
    assert.equal(sendCost(op('send', 'SendSMS'), { Recipient: ['+491'], SMSText: long }), 2);
    assert.equal(sendCost(op('send', 'SendSimpleSMS'), { Recipient: '+491', SMSText: '€'.repeat(80) }), 1);
    assert.equal(sendCost(op('send', 'SendSimpleSMS'), { Recipient: '+491', SMSText: 'ü😀'.repeat(30) }), 2);
    assert.equal(
      sendCost(op('send', 'SendMobileOrFixlineSMS'), { Recipient: '+491, +492;+493', SMSText: long }),
      6,
    );
    assert.equal(sendCost(op('send', 'SendHLR'), { Recipient: '+491,+492' }), 2);
    assert.equal(sendCost(op('send', 'SendUDH'), { Recipient: '+491', Data: 'AB'.repeat(140) }), 1);
    assert.equal(sendCost(op('send', 'SendUDH'), { Recipient: '+491', Data: 'AB'.repeat(141) }), 2);
    assert.equal(sendCost(op('legacy', 'SendText'), { Recipient: '+491,+492', SMSText: long }), 4);
    const bytes = Buffer.from('+491,+492,+493', 'utf8');
    assert.equal(sendCost(op('legacy', 'SMSCR'), { bRecipient: bytes, Msg: 'hi' }), 3);
    // As the outbox stores bytes: base64.
    assert.equal(sendCost(op('legacy', 'SMSCR'), { bRecipient: bytes.toString('base64'), Msg: 'hi' }), 3);
    assert.equal(sendCost(op('legacy', 'SendBinURL'), { Recipient: '+491', URL: 'https://x' }), 1);
  });

  it('recipients are counted on every separator the gateway might honour: CR, tab, |, the Unicode line breaks', () => {
    const send = op('send', 'SendSimpleSMS');
    const ten = (sep: string): string =>
      Array.from({ length: 10 }, (_, i) => `+4917012345${String(i).padStart(2, '0')}`).join(sep);
    for (const sep of [',', ';', '\n', '\r', '\r\n', '\t', '|', '\v', '\f', '\u0085', '\u2028', '\u2029'])
      assert.equal(sendCost(send, { Recipient: ten(sep), SMSText: 'hi' }), 10, JSON.stringify(sep));
    // Spaces inside a number are not separators; blank entries count nothing.
    assert.equal(sendCost(send, { Recipient: '+49 170 1234567', SMSText: 'hi' }), 1);
    assert.equal(sendCost(send, { Recipient: ',+491,,\r\n;', SMSText: 'hi' }), 1);
    // SMSCR's bytes and a list item holding several numbers.
    assert.equal(sendCost(op('legacy', 'SMSCR'), { bRecipient: Buffer.from(ten('\r')), Msg: 'hi' }), 10);
    assert.equal(sendCost(op('send', 'SendSMS'), { Recipient: ['+491\r+492', '+493'], SMSText: 'hi' }), 3);
    // A list as invoke() writes it for SOAP: a child element per item.
    assert.equal(
      sendCost(op('send', 'SendSMS'), { Recipient: { string: ['+491', '+492|+493'] }, SMSText: 'hi' }),
      3,
    );
  });
});
