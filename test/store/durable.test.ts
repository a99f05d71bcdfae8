import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { removeStaleTemps } from '../../src/store/durable';
import { JournalStore } from '../../src/reliability/outbox-journal';

const ROOT = resolve(__dirname, '..', '..');

/** A process id that no process has now (for a temp file a crashed process left). */
function deadPid(): number {
  for (let pid = 4_000_000; pid > 1000; pid -= 7919) {
    try {
      process.kill(pid, 0);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ESRCH') return pid;
    }
  }
  throw new Error('no free pid found');
}

/**
 * Runs `code` (TypeScript, the sources at hand) in a child whose files may not grow past 2 KiB (`ulimit -f 4`):
 * a write beyond it fails with EFBIG, part of it on disk, as on a full disk. Root is not exempt from this limit
 * (it is from chmod, and the tests run as root here). Returns what the child printed.
 */
function withSizeLimit(code: string): string {
  const r = spawnSync('sh', ['-c', `ulimit -f 4; exec "${process.execPath}" -r tsx/cjs -e "$CODE"`], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, CODE: code },
    timeout: 30_000,
  });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim();
}

describe('reliability: durable files (temp file, fsync, rename)', function () {
  this.timeout(30_000);
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'smsgw-atomic-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  // A failed write never keeps disk space.
  it('a write that fails part-way (EFBIG, as a full disk) removes its temp file and leaves the file as it was', async () => {
    const file = join(dir, 'state.json');
    await writeFile(file, 'old');
    const out = withSizeLimit(`
      const { writeFileAtomic } = require('./src/store/durable');
      writeFileAtomic(${JSON.stringify(file)}, 'x'.repeat(100000)).then(
        () => console.log('written'),
        (e) => console.log(e.code),
      );
    `);
    assert.equal(out, 'EFBIG');
    assert.deepEqual(await readdir(dir), ['state.json'], 'no temp file left');
    assert.equal(await readFile(file, 'utf8'), 'old');
  });

  it('a journal compaction that fails part-way removes its temp file; the journal stays as it was', async () => {
    const file = join(dir, 'outbox.jsonl');
    const entries = Array.from({ length: 40 }, (_, i) => ({
      id: `id-${i}`,
      reference: `r${String(i).padStart(9, '0')}`,
      service: 'send',
      operation: 'SendSMS',
      params: { Recipients: '+4917012345678', SMSText: 'a text that takes some room', Caption: `c${i}` },
      createdAt: new Date(0).toISOString(),
      attempts: 0,
      maybeSent: false,
      inFlight: false,
    }));
    // Older than the limit: written in full here, too big for the child to write again.
    const text = entries.map((e) => JSON.stringify({ add: e })).join('\n') + '\n';
    await writeFile(file, text);
    const out = withSizeLimit(`
      const { JournalStore } = require('./src/reliability/outbox-journal');
      new JournalStore({ file: ${JSON.stringify(file)} }).load().then(
        () => console.log('loaded'),
        (e) => console.log(e.code),
      );
    `);
    assert.equal(out, 'EFBIG');
    assert.deepEqual(await readdir(dir), ['outbox.jsonl'], 'no temp file left');
    assert.equal(await readFile(file, 'utf8'), text);
  });

  it('temp files a crash left are removed at start; those of a process that runs now are kept', async () => {
    const file = join(dir, 'outbox.jsonl');
    const dead = deadPid();
    const stale = [
      `outbox.jsonl.tmp-${dead}-3`,
      // A process that had this one's pid before (a container restarts with the same pid).
      `outbox.jsonl.tmp-${process.pid}-1`,
      // The state files' name before this version.
      `outbox.jsonl.${dead}.tmp`,
    ];
    // pid 1 always runs: it may be writing its own.
    const running = 'outbox.jsonl.tmp-1-9';
    for (const name of [...stale, running, 'other.jsonl.tmp-5-5']) await writeFile(join(dir, name), 'x');
    const store = new JournalStore({ file });
    await store.load();
    await store.close();
    assert.deepEqual((await readdir(dir)).sort(), ['other.jsonl.tmp-5-5', 'outbox.jsonl', running].sort());
    assert.deepEqual(await removeStaleTemps(file), [], 'nothing more to remove');
  });
});
