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
import { ReportStatuses } from '../../src/nodes/polling/report-status';
import {
  damageParams,
  readState,
  StateFile,
  stateText,
  type StateDamage,
  type StoreProblem,
} from '../../src/store';
import { legacyStateText } from '../store/legacy-text';
import { DeliveryTracker } from '../../src/nodes/send/delivery-tracker';
import { Manifest } from '../../src/store';
import {
  collect,
  flowWith,
  helper,
  loadFlow,
  send,
  sleep,
  startEnv,
  statuses,
  stopEnv,
  waitFor,
  type Env,
  type FlowNode,
} from './helpers';

type Rec = Record<string, unknown>;

const mode = (p: string): number => statSync(p).mode & 0o777;

/** Inbound messages collected from the gateway before a crash and not yet emitted (poll-node's `pending`). */
const pendingInbound = (ids: number[]): Rec[] =>
  ids.map((id) => ({
    payload: `pending ${id}`,
    topic: '+4917012377100',
    sms: {
      Id: id,
      Sender: '+4917012377100',
      Text: `pending ${id}`,
      Date: { $date: '2026-01-02T03:04:05.000Z' },
    },
  }));

// Nothing already collected is lost with a damaged state file.
describe('nodes: state files (durable, private, damaged files copied aside and read as far as they can be)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'smsgw-state-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes mode 0600 in a 0700 directory (one an older version made wider is narrowed), one value per line', async () => {
    const stateDir = path.join(dir, 'smsgw-state');
    mkdirSync(stateDir, { mode: 0o755 });
    chmodSync(stateDir, 0o755);
    const file = new StateFile<Rec>(dir, 'smsgw-inbound.n1', { kind: 'listener' });
    await file.save({ seen: ['id:1'], pending: pendingInbound([1]) });
    assert.equal(mode(stateDir), 0o700);
    assert.equal(mode(file.file!), 0o600);
    assert.equal(
      readFileSync(file.file!, 'utf8'),
      stateText({ seen: ['id:1'], pending: pendingInbound([1]) }),
    );
    assert.deepEqual(readdirSync(stateDir), ['smsgw-inbound.n1.json'], 'no temp file left');
    assert.equal(
      mode(path.join(dir, 'smsgw-state.manifest.json')),
      0o600,
      'listed in the manifest beside it',
    );
  });

  it('a cut file: copied aside (0600), the records before the cut kept and written back, the loss described', async () => {
    const damages: StateDamage[] = [];
    const file = new StateFile<Rec>(dir, 'smsgw-inbound.n1', {
      kind: 'listener',
      onDamage: (d) => damages.push(d),
    });
    const whole = stateText({ seen: ['id:1', 'id:2', 'id:3'], pending: pendingInbound([1, 2, 3]) });
    const cut = whole.slice(0, whole.indexOf('pending 3') + 3);
    mkdirSync(path.dirname(file.file!), { recursive: true });
    writeFileSync(file.file!, cut);
    // A temp file of a crashed write, left beside it.
    writeFileSync(`${file.file!}.tmp-999999999-1`, 'half');
    const loaded = await file.open();
    assert.deepEqual(loaded, { seen: ['id:1', 'id:2', 'id:3'], pending: pendingInbound([1, 2]) });
    const damage = file.damage as StateDamage;
    assert.deepEqual(damages, [damage], 'told once');
    assert.equal(damage.file, file.file);
    assert.match(damage.aside!, /smsgw-inbound\.n1\.json\.damaged-\d+$/);
    assert.equal(readFileSync(damage.aside!, 'utf8'), cut, 'the copy is the file as it was');
    assert.equal(mode(damage.aside!), 0o600);
    assert.deepEqual(damageParams(damage), {
      file: file.file,
      aside: damage.aside,
      why: 'the file is cut short',
      kept: 'seen (3 items), pending (2 items)',
      lost: 'whatever followed the cut',
    });
    await file.flush();
    const again = new StateFile<Rec>(dir, 'smsgw-inbound.n1', { kind: 'listener' });
    assert.deepEqual(await again.open(), loaded, 'written back: the next start reads a sound file');
    assert.equal(again.damage, undefined);
    await again.flush();
    assert.deepEqual(
      readdirSync(path.dirname(file.file!)).sort(),
      [path.basename(damage.aside!), 'smsgw-inbound.n1.json'].sort(),
      'one copy, no temp file',
    );
  });

  it('a file that cannot be read (a directory in its place): told once, read again until it can be, then used', async () => {
    const told: (StoreProblem | undefined)[] = [];
    const file = new StateFile<Rec>(dir, 'smsgw-dlr.n1', { kind: 'cursor', onProblem: (p) => told.push(p) });
    mkdirSync(file.file!, { recursive: true });
    let opened = false;
    const open = file.open().then((v) => {
      opened = true;
      return v;
    });
    await file.retryNow();
    await file.retryNow();
    assert.equal(opened, false, 'nothing is started on a file that cannot be read');
    assert.equal(told.length, 1, 'told once');
    assert.deepEqual([told[0]!.op, told[0]!.code], ['read', 'EISDIR']);
    rmSync(file.file!, { recursive: true });
    await file.retryNow();
    assert.equal(await open, undefined);
    assert.deepEqual(told.slice(1), [undefined], 'told once it can be read again');
  });

  it('a file written before and gone (listed in the manifest beside the directory): told as loudly as a damaged one', async () => {
    const first = new StateFile<Rec>(dir, 'smsgw-dlr.n1', { kind: 'cursor' });
    await first.save({ cursor: 'x' });
    rmSync(path.join(dir, 'smsgw-state'), { recursive: true });
    Manifest.forgetAll();
    const damages: StateDamage[] = [];
    const again = new StateFile<Rec>(dir, 'smsgw-dlr.n1', {
      kind: 'cursor',
      onDamage: (d) => damages.push(d),
    });
    assert.equal(await again.open(), undefined);
    assert.equal(damages.length, 1);
    assert.equal(damages[0]!.kind, 'missing');
    assert.equal(damages[0]!.file, first.file);
    // Removed on purpose (a deleted node): off the manifest, so its absence is nothing to tell.
    await again.save({ cursor: 'y' });
    await again.remove();
    Manifest.forgetAll();
    const third = new StateFile<Rec>(dir, 'smsgw-dlr.n1', {
      kind: 'cursor',
      onDamage: (d) => damages.push(d),
    });
    assert.equal(await third.open(), undefined);
    assert.equal(damages.length, 1);
  });

  it('delivery tracking: a damaged file keeps the jobs it can read and reports the rest', async () => {
    const job = (jobId: number): Rec => ({
      jobId,
      owner: 'n1',
      recipients: ['+4917012377001'],
      trackedAt: Date.now(),
      deadline: Date.now() + 3_600_000,
      reports: [],
    });
    const text = stateText({ cursor: null, seen: {}, jobs: [job(11), job(12)] });
    mkdirSync(path.join(dir, 'smsgw-state'));
    const file = path.join(dir, 'smsgw-state', 'smsgw-delivery.cfg.json');
    // One byte of job 12 changed: its line's checksum no longer matches.
    writeFileSync(file, text.replace('"jobId":12', '"jobId":13'));
    const damaged: StateDamage[] = [];
    const tracker = new DeliveryTracker({
      userDir: dir,
      id: 'cfg',
      query: () => Promise.resolve([]),
      intervalMs: 3_600_000,
      statuses: ReportStatuses.from(undefined, undefined),
      lookbackMs: 3_600_000,
      onDamaged: (d) => damaged.push(d),
    });
    try {
      await tracker.ready;
      assert.equal(tracker.size, 1);
      assert.equal(damaged.length, 1);
      assert.match(damaged[0]!.kept.join(', '), /jobs \(1 item\)/);
      assert.deepEqual(damaged[0]!.lost, ['1 unreadable item of jobs']);
    } finally {
      await tracker.close();
    }
  });
});

describe('nodes: a poller with a damaged state file emits what it had collected and polls on', () => {
  let env: Env;
  before(async () => {
    env = await startEnv();
  });
  after(() => stopEnv(env));
  afterEach(() => helper.unload());

  const stateFile = (): string => path.join(env.userDir, 'smsgw-state', 'smsgw-inbound.p1.json');
  const errorKeys = (): string[] => {
    const n = helper.getNode('p1') as unknown as { error: { args: unknown[][]; thisValues: unknown[] } };
    return n.error.args.filter((_a, i) => n.error.thisValues[i] === n).map((a) => String(a[0]));
  };

  /** Starts an inbound trigger on `text` as its state file, polls twice; returns what it emitted. */
  async function startOn(text: string): Promise<{ payloads: unknown[]; fresh: number }> {
    mkdirSync(path.dirname(stateFile()), { recursive: true });
    for (const f of readdirSync(path.dirname(stateFile()))) rmSync(path.join(path.dirname(stateFile()), f));
    writeFileSync(stateFile(), text);
    const flow: FlowNode[] = flowWith(env.emu.url, [
      { id: 'p1', type: 'smsgw-inbound', gateway: 'cfg', interval: 60, inputs: 1, wires: [['out']] },
    ]);
    await loadFlow(flow);
    const got = collect('out');
    const { id: fresh } = env.emu.control.injectInbound({ from: '+4917012377101', text: 'after the damage' });
    for (let i = 0; i < 2; i++) {
      const before = statuses('p1').length;
      send('p1', { payload: 'poll' });
      await waitFor(() =>
        statuses('p1')
          .slice(before)
          .some((s) => s.fill !== undefined && s.fill !== 'blue'),
      );
    }
    await sleep(20);
    got.stop();
    return { payloads: got.messages.map((m) => m.payload), fresh };
  }

  /** One error naming the damage, the file copied aside as it was, and the state file sound again. */
  function assertReported(text: string): void {
    const damaged = errorKeys().filter((k) => /could not be read whole/.test(k));
    assert.equal(damaged.length, 1, errorKeys().join('\n'));
    // The text the user reads names the file, where it was copied and what was kept.
    assert.match(
      damaged[0]!,
      /^State file .*smsgw-inbound\.p1\.json could not be read whole \(.+\): copied to .*smsgw-inbound\.p1\.json\.damaged-\d+\. Kept and used: .*\. Lost: .*\. Polling goes on\.$/,
    );
    const names = readdirSync(path.dirname(stateFile()));
    const aside = names.filter((n) => /^smsgw-inbound\.p1\.json\.damaged-\d+$/.test(n));
    assert.equal(aside.length, 1, names.join(', '));
    assert.equal(readFileSync(path.join(path.dirname(stateFile()), aside[0]!), 'utf8'), text);
    const saved = readState(readFileSync(stateFile(), 'utf8')).value as {
      seen: string[];
      pending?: unknown[];
    };
    assert.ok(Array.isArray(saved.seen));
    assert.equal(saved.pending, undefined, 'emitted, so no longer pending');
    assert.equal(mode(stateFile()), 0o600);
  }

  it('cut short (a file of an older version, on one line): the pending messages before the cut are emitted', async () => {
    const text = JSON.stringify({
      seen: ['id:990101', 'id:990102'],
      pending: pendingInbound([990101, 990102]),
    });
    const cut = text.slice(0, text.indexOf('pending 990102'));
    const { payloads } = await startOn(cut);
    assert.deepEqual(payloads, ['pending 990101', 'after the damage']);
    assertReported(cut);
  });

  it('cut short (the version before checksums): every pending message whose line is whole is emitted', async () => {
    const text = legacyStateText({ seen: ['id:990251'], pending: pendingInbound([990251, 990252, 990253]) });
    const cut = text.slice(0, text.indexOf('pending 990253'));
    const { payloads } = await startOn(cut);
    assert.deepEqual(payloads, ['pending 990251', 'pending 990252', 'after the damage']);
    assertReported(cut);
  });

  it('cut short (this version): every pending message whose line is whole is emitted', async () => {
    const text = stateText({ seen: ['id:990201'], pending: pendingInbound([990201, 990202, 990203]) });
    const cut = text.slice(0, text.indexOf('pending 990203'));
    const { payloads } = await startOn(cut);
    assert.deepEqual(payloads, ['pending 990201', 'pending 990202', 'after the damage']);
    assertReported(cut);
  });

  it('garbage over a line: the other pending messages are emitted', async () => {
    const lines = stateText({ seen: ['id:990301'], pending: pendingInbound([990301, 990302, 990303]) }).split(
      '\n',
    );
    const i = lines.findIndex((l) => l.includes('pending 990302'));
    lines[i] = '\u0000\u00ff garbage \u0000,';
    const text = lines.join('\n');
    const { payloads } = await startOn(text);
    assert.deepEqual(payloads, ['pending 990301', 'pending 990303', 'after the damage']);
    assertReported(text);
  });

  it('empty: nothing to keep; reported, and the poller polls on', async () => {
    const { payloads } = await startOn('');
    assert.deepEqual(payloads, ['after the damage']);
    assertReported('');
  });
});
