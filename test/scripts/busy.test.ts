/**
 * scripts/busy.ts (npm run busy, npm run test:busy): runs a command beside N busy processes and stops them
 * whatever happens, so a run under load never leaves a machine spinning. One busy process each here, and commands
 * that end at once: this test adds next to no load to the suite it runs in.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const BUSY = ['--require', 'tsx/cjs', join(ROOT, 'scripts', 'busy.ts')];

/** Whether process `pid` still runs (a zombie waiting for its new parent to collect it does not). */
function running(pid: number): boolean {
  if (process.platform === 'linux') {
    const stat = `/proc/${pid}/stat`;
    if (!existsSync(stat)) return false;
    try {
      // "pid (comm) S ...": the state follows the command name's closing parenthesis.
      const text = readFileSync(stat, 'latin1');
      return !/^[ZX]/.test(text.slice(text.lastIndexOf(')') + 2));
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; !check(); i++) {
    if (i >= 600) throw new Error(`${what} (waited 30 s)`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const pidsIn = (text: string): number[] => (/pids=([\d,]*)/.exec(text)?.[1] ?? '').split(',').map(Number);

describe('scripts/busy.ts: a command beside busy processes', function () {
  this.timeout(60_000);

  it("passes the command's exit code on, and its busy processes are gone when it ends", async () => {
    const run = spawnSync(
      process.execPath,
      [
        ...BUSY,
        '--procs',
        '2',
        '--',
        process.execPath,
        '-e',
        'console.log("pids=" + process.env.SMSGW_BUSY_PIDS); process.exit(3)',
      ],
      { cwd: ROOT, encoding: 'utf8', timeout: 50_000 },
    );
    assert.equal(run.status, 3, run.stderr);
    const pids = pidsIn(run.stdout);
    assert.equal(pids.length, 2, run.stdout);
    assert.match(run.stderr, /busy: 2 busy processes on \d+ cores/);
    await until(() => pids.every((p) => !running(p)), `busy processes ${pids.join(', ')} still run`);
  });

  it('Ctrl-C (SIGINT) stops the command and the busy processes; the exit code says so', async () => {
    const child = spawn(
      process.execPath,
      [
        ...BUSY,
        '--procs',
        '1',
        '--',
        process.execPath,
        '-e',
        'console.log("pids=" + process.env.SMSGW_BUSY_PIDS); setInterval(() => {}, 1000)',
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await until(() => out.includes('\n'), `the command did not start: ${out}`);
      const pids = pidsIn(out);
      assert.ok(pids.length === 1 && running(pids[0]!), out);
      child.kill('SIGINT');
      assert.equal(await exited, 130);
      await until(() => !running(pids[0]!), `busy process ${pids[0]} still runs`);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
