/**
 * The store's fault suite: the same faults against every kind of state (STORE_KINDS), each through its driver
 * (conformance-cases.ts), and for each the same three things asserted: nothing acknowledged is lost, nothing is
 * done twice, the user is told (once, naming the file). A kind of state without a driver fails here.
 *
 * Faults, made through the store's one door to the disk (src/store/fs.ts) or on the file itself:
 *   - EIO, ENOSPC, EACCES, a rename that fails: during a write (the next save meets it) and between writes (the
 *     next start cannot read the file);
 *   - the file deleted, cut short, one byte flipped: between writes (on the file, while stopped) and during a write
 *     (a crash: the write's temp file left behind damaged, or the journal's last record torn).
 * No real time passes: retries are fired by hand (HandTimers), and waits are bounded turns of the event loop.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Manifest, STORE_KINDS, type StoreKind } from '../../src/store';
import { injectFaults, type FsOp } from '../../src/store/fs';
import { DRIVERS, HandTimers, until, type Driver, type Instance, type World } from './conformance-cases';

interface IoFault {
  name: string;
  code: string;
  /** The calls that fail with it during a write. */
  ops: FsOp[];
}

const IO_FAULTS: IoFault[] = [
  { name: 'EIO', code: 'EIO', ops: ['write', 'sync'] },
  { name: 'ENOSPC', code: 'ENOSPC', ops: ['write'] },
  { name: 'EACCES', code: 'EACCES', ops: ['open', 'write'] },
  { name: 'rename failure', code: 'EXDEV', ops: ['rename'] },
];

const DAMAGES = ['deleted', 'cut short', 'one byte flipped'] as const;
type Damage = (typeof DAMAGES)[number];

function world(): World {
  return {
    dir: mkdtempSync(path.join(tmpdir(), 'smsgw-conformance-')),
    told: [],
    acts: [],
    timers: new HandTimers(),
    extra: {},
  };
}

/** The calls on `file` (and on its temp files) that `ops` name fail with `code`; returns the count of hits. */
function failing(file: string, ops: FsOp[], code: string): { hits: () => number; off: () => void } {
  let hits = 0;
  const off = injectFaults((op, p) => {
    if (!ops.includes(op) || (p !== file && !p.startsWith(`${file}.tmp-`))) return undefined;
    hits++;
    return code;
  });
  return { hits: () => hits, off };
}

/** The same change again, after a refusal (as its caller does: a msg resent, a send tried again). */
async function makeAll(inst: Instance, ids: number[]): Promise<void> {
  for (const i of ids) assert.equal(await inst.change(i), 'done', `change ${i} once the store can write`);
}

const count = (list: number[], i: number): number => list.filter((x) => x === i).length;

/** Every act at most once; `must` exactly once. */
function onceEach(w: World, must: number[]): void {
  for (const i of new Set(w.acts))
    assert.equal(count(w.acts, i), 1, `act ${i} once (acts: ${w.acts.join(',')})`);
  for (const i of must) assert.equal(count(w.acts, i), 1, `act ${i} done (acts: ${w.acts.join(',')})`);
}

/** Lets the killed instance's last promises settle before the next start (bounded turns, no sleep). */
async function turns(n = 50): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
}

function damage(file: string, how: Damage): void {
  if (how === 'deleted') return rmSync(file);
  const text = readFileSync(file);
  if (how === 'cut short') return writeFileSync(file, text.subarray(0, Math.floor(text.length / 2)));
  const at = Math.floor(text.length / 2);
  const flipped = Buffer.from(text);
  flipped[at] = flipped[at]! ^ 0x04;
  writeFileSync(file, flipped);
}

/** Starts, or for a driver whose start fails on a file it cannot read, the error that names it. */
async function startOrError(d: Driver, w: World): Promise<Instance | Error> {
  try {
    return await d.start(w);
  } catch (e) {
    return e as Error;
  }
}

describe('store: the fault suite (every kind of state, the same faults)', function () {
  this.timeout(20_000);
  const worlds: World[] = [];
  const fresh = (): World => {
    Manifest.forgetAll();
    const w = world();
    worlds.push(w);
    return w;
  };
  const restart = (): void => Manifest.forgetAll();
  afterEach(() => {
    for (const w of worlds.splice(0)) rmSync(w.dir, { recursive: true, force: true });
  });

  it('every kind of state has a driver here (a new kind without one fails)', () => {
    const missing = STORE_KINDS.filter((k) => DRIVERS[k] === undefined);
    assert.deepEqual(missing, []);
    assert.deepEqual(Object.keys(DRIVERS).sort(), [...STORE_KINDS].sort());
  });

  for (const kind of STORE_KINDS) {
    const d = DRIVERS[kind as StoreKind];
    if (!d) continue;
    describe(`${kind}`, () => {
      for (const fault of IO_FAULTS) {
        it(`${fault.name} during a write: not acted on, told once, kept or refused, then once when it can write`, async () => {
          const w = fresh();
          const na = d.notApplicable?.[fault.name];
          const inst = await d.start(w);
          assert.equal(await inst.change(1), 'done');
          const file = d.file(w);
          let off: () => void;
          let hits: () => number;
          if (kind === 'context') {
            w.extra.contextFault = fault.code;
            off = () => (w.extra.contextFault = undefined);
            hits = () => 1;
          } else ({ off, hits } = failing(file, fault.ops, fault.code));
          let second: string;
          try {
            second = await inst.change(2);
            // A store whose writes never meet this call (the journal appends to an open file: no open, no
            // rename) did its work: durable, acted once. Every other write meets it.
            if (second === 'done') assert.equal(hits(), 0, `${fault.name} was met, yet change 2 was done`);
            else {
              assert.ok(!w.acts.includes(2), 'nothing follows from an unsaved change');
              assert.equal(await inst.change(3), second, 'the next change meets it too');
              assert.ok(!w.acts.includes(3));
              const problems = w.told.filter((t) => t.type === 'problem');
              assert.equal(problems.length, 1, `told once: ${JSON.stringify(w.told)}`);
              const p = problems[0] as { file: string; code: string };
              if (kind === 'outbox')
                assert.match(p.code, new RegExp(`${fault.code}.*${path.basename(file)}`));
              else assert.deepEqual([p.file, p.code], [file, fault.code]);
            }
          } finally {
            off();
          }
          void na;
          w.timers.fire();
          await inst.recover();
          if (second === 'refused') await makeAll(inst, [2, 3]);
          const must = second === 'done' ? [1, 2] : [1, 2, 3];
          await inst.recover();
          onceEach(w, must);
          if (second !== 'done')
            assert.ok(
              w.told.some((t) => t.type === 'recovered'),
              'told it works again',
            );
          await inst.stop();
          restart();
          const again = await d.start(w);
          const known = await again.known();
          if (kind !== 'outbox' && kind !== 'delivery')
            for (const i of must) assert.ok(known.includes(i), `${i} kept`);
          await again.recover();
          onceEach(w, must);
          await again.stop();
        });

        it(`${fault.name} between writes (the next start cannot read): nothing started on a guess, told, then all of it`, async () => {
          const w = fresh();
          const first = await d.start(w);
          await makeAll(first, [1, 2]);
          await first.stop();
          restart();
          const file = d.file(w);
          if (kind === 'context') {
            assert.match(d.notApplicable!.read!, /context store/);
            return;
          }
          const { off, hits } = failing(file, ['read'], fault.code);
          let started: Instance | Error | undefined;
          const pending = startOrError(d, w).then((s) => (started = s));
          try {
            if (d.startWaits) {
              await until(() => w.told.some((t) => t.type === 'problem'));
              assert.ok(hits() > 0, 'the start read the file');
              assert.equal(started, undefined, 'not started on a file it cannot read');
              const told = w.told.filter((t) => t.type === 'problem');
              assert.equal(told.length, 1, JSON.stringify(w.told));
              assert.deepEqual(
                [(told[0] as { op: string }).op, (told[0] as { code: string }).code],
                ['read', fault.code],
              );
            } else {
              await pending;
              assert.ok(hits() > 0, 'the start read the file');
              assert.ok(started instanceof Error, 'refused');
              assert.match(started.message, new RegExp(`${fault.code}.*${path.basename(file)}`));
            }
          } finally {
            off();
          }
          if (d.startWaits) w.timers.fire();
          await pending;
          const inst = started instanceof Error || !started ? await d.start(w) : started;
          const known = await inst.known();
          if (kind !== 'delivery') assert.deepEqual([...known].sort(), [1, 2]);
          await inst.recover();
          onceEach(w, [1, 2]);
          await inst.stop();
        });
      }

      for (const how of DAMAGES) {
        it(`${how} between writes: told (naming the file), what is kept is its own, nothing done twice`, async () => {
          const w = fresh();
          const first = await d.start(w);
          await makeAll(first, [1, 2, 3, 4, 5]);
          await first.stop();
          const file = d.file(w);
          const na = d.notApplicable?.[how];
          if (na) {
            assert.match(na, /context store/);
            return;
          }
          if (kind === 'context') {
            (w.extra.values as Map<string, unknown>).delete(file);
          } else damage(file, how);
          restart();
          const before = w.acts.length;
          const inst = await d.start(w);
          if (kind === 'outbox' && how === 'cut short') {
            // A journal cut in a record cannot be told from a crash's torn last record (never acknowledged): the
            // records before the cut are kept, and the cut one told, naming the file.
            assert.ok(
              w.told.some(
                (t) => t.type === 'warning' && t.text.startsWith(`${file}: an unfinished last record`),
              ),
              JSON.stringify(w.told),
            );
            for (const i of await inst.known()) assert.ok([1, 2, 3, 4, 5].includes(i));
            await inst.recover();
            onceEach(w, []);
            await inst.stop();
            return;
          }
          const named = w.told.find((t) => t.type === 'damage') as { file: string; kind: string } | undefined;
          assert.ok(named, `a damage told: ${JSON.stringify(w.told)}`);
          assert.equal(named.file, file);
          assert.equal(named.kind, how === 'deleted' ? 'missing' : 'damaged');
          const known = await inst.known();
          for (const i of known) assert.ok([1, 2, 3, 4, 5].includes(i), `${i} is its own`);
          if (how === 'one byte flipped' && d.keepsLines && kind !== 'delivery')
            assert.ok(known.length >= 4, `one record lost at most: kept ${known.join(',')}`);
          if (d.lostOnDamage) {
            // The spending guard's safe default: the counts lost, every send refused until a person confirms.
            assert.equal(await inst.change(6), 'refused');
          }
          await inst.recover();
          assert.equal(w.acts.length - before >= 0, true);
          onceEach(w, []);
          await inst.stop();
        });

        it(`${how} during a write (a crash mid-write): the file as it was, nothing told falsely, nothing twice`, async () => {
          const w = fresh();
          const na = d.notApplicable?.['during a write'];
          if (na) {
            assert.match(na, /context store/);
            return;
          }
          const inst = await d.start(w);
          await makeAll(inst, [1, 2]);
          const file = d.file(w);
          if (kind === 'outbox') {
            // An append whose flush never returned (killed): its last record torn, never acknowledged.
            const { off } = failing(file, ['sync'], 'EIO');
            assert.equal(await inst.change(3), 'refused');
            off();
            inst.kill();
            await turns();
            if (how === 'deleted') {
              // Removed under a running outbox: it writes the journal again from what it holds (told).
              const alive = await d.start(w);
              rmSync(file);
              assert.equal(await alive.change(4), 'done');
              assert.ok(existsSync(file));
              assert.ok(w.told.some((t) => t.type === 'warning' && /moved or removed/.test(t.text)));
              await alive.stop();
              restart();
              const after = await d.start(w);
              // 3 was refused as ambiguous (its record written, its flush failed): it may come back, once.
              const known = await after.known();
              for (const i of [1, 2, 4]) assert.ok(known.includes(i), `${i} kept`);
              for (const i of known) assert.ok([1, 2, 3, 4].includes(i));
              await after.recover();
              onceEach(w, [1, 2, 4]);
              await after.stop();
              return;
            }
            const text = readFileSync(file, 'utf8');
            const last = text.lastIndexOf('\n', text.length - 2) + 1;
            if (how === 'cut short')
              writeFileSync(file, text.slice(0, last + Math.floor((text.length - last) / 2)));
            else {
              const b = Buffer.from(text.slice(0, -1), 'utf8');
              const at = Buffer.byteLength(text.slice(0, last)) + 5;
              b[at] = b[at]! ^ 0x04;
              writeFileSync(file, b);
            }
            restart();
            const after = await d.start(w);
            assert.ok(
              w.told.some((t) => t.type === 'warning' && /unfinished last record/.test(t.text)),
              JSON.stringify(w.told),
            );
            assert.deepEqual((await after.known()).sort(), [1, 2]);
            await after.recover();
            onceEach(w, [1, 2]);
            await after.stop();
            return;
          }
          // The write's temp file written, the rename never done (killed): the temp stays, damaged as it may be.
          const stop = injectFaults((op, p) => {
            if (op === 'rename' && p === file) return 'EIO';
            if (op === 'unlink' && p.startsWith(`${file}.tmp-`)) return 'EIO';
            return undefined;
          });
          try {
            const third = await inst.change(3);
            assert.notEqual(third, 'done');
          } finally {
            stop();
          }
          inst.kill();
          await turns();
          const temps = readdirSync(path.dirname(file)).filter((n) =>
            n.startsWith(`${path.basename(file)}.tmp-`),
          );
          assert.ok(temps.length > 0, 'a temp file left, as a crash leaves it');
          for (const t of temps) damage(path.join(path.dirname(file), t), how);
          restart();
          w.told.length = 0;
          const after = await d.start(w);
          assert.deepEqual(
            w.told.filter((t) => t.type === 'damage'),
            [],
            'the file itself is whole: nothing to tell',
          );
          const known = await after.known();
          for (const i of [1, 2]) if (kind !== 'delivery') assert.ok(known.includes(i), `${i} kept`);
          assert.ok(!w.acts.includes(3), 'the change whose write never ended was not acted on');
          await after.recover();
          onceEach(w, [1, 2]);
          await after.stop();
          // (Looked at once it stopped: a write of its own may be under way while it runs.)
          assert.deepEqual(
            readdirSync(path.dirname(file)).filter((n) => temps.includes(n)),
            [],
            'the temp files a crash left are removed at start',
          );
          assert.equal(statSync(file).mode & 0o777, 0o600);
        });
      }
    });
  }
});
