/**
 * Runs a command while N other processes keep the machine's cores busy: `npm test` must pass on a loaded
 * machine (a 2-core CI runner, a laptop compiling something else), so a timed assertion shows up here instead
 * of on someone else's machine.
 *
 *   tsx scripts/busy.ts [--procs N] [--] <command> [args...]     (N: 8 unless SMSGW_BUSY_PROCS says)
 *   npm run busy -- npm test                                       npm run test:busy (the node tests)
 *
 * Each busy process is `node -e` spinning in a loop (and looking every few milliseconds whether the process that
 * started it is still there, so none is left behind when this script is killed with SIGKILL). They are stopped
 * whatever happens: the command ends, fails, cannot be started, or this script gets Ctrl-C, SIGTERM or SIGHUP
 * (which then go to the command and all it started; what still runs 10 s later is killed).
 * The command's exit code is this script's (128 + the signal number when it ended on a signal). The busy
 * processes' ids are in the command's environment as SMSGW_BUSY_PIDS (comma-separated).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism, constants, loadavg } from 'node:os';
import { childEnv } from './lib/proc';

// Spins; every 2^22 turns (a few ms) it checks that its parent is still the one that started it.
const SPIN = 'const p=process.ppid;for(let i=1;;i++)if((i&0x3fffff)===0&&process.ppid!==p)process.exit(0)';

function usage(message: string): never {
  process.stderr.write(`busy: ${message}\nusage: tsx scripts/busy.ts [--procs N] [--] <command> [args...]\n`);
  process.exit(2);
}

function parse(argv: string[]): { procs: number; command: string[] } {
  let procs = Number(process.env.SMSGW_BUSY_PROCS ?? 8);
  let i = 0;
  for (; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      i++;
      break;
    }
    if (arg === '--procs') procs = Number(argv[++i]);
    else if (arg.startsWith('--procs=')) procs = Number(arg.slice('--procs='.length));
    else break;
  }
  if (!Number.isInteger(procs) || procs < 0 || procs > 64) usage(`--procs must be 0 to 64, not ${procs}`);
  const command = argv.slice(i);
  if (command.length === 0) usage('no command');
  return { procs, command };
}

const { procs, command } = parse(process.argv.slice(2));
const busy: ChildProcess[] = [];
let stopped = false;

/** Stops every busy process (synchronously: also from the 'exit' handler). */
function stopBusy(): void {
  if (stopped) return;
  stopped = true;
  for (const child of busy) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}
process.on('exit', stopBusy);

for (let i = 0; i < procs; i++) {
  const child = spawn(process.execPath, ['-e', SPIN], { stdio: 'ignore', env: childEnv() });
  child.on('error', (e) => process.stderr.write(`busy: a busy process could not start: ${e.message}\n`));
  busy.push(child);
}
const pids = busy.map((c) => c.pid).filter((p): p is number => p !== undefined);
const started = Date.now();
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
process.stderr.write(
  `busy: ${pids.length} busy processes on ${availableParallelism()} cores (load average ${load()}): ${command.join(' ')}\n`,
);

// The command runs in a process group of its own, so that a signal reaches all of it: npm, for one, does not
// pass SIGINT on to the script it runs.
const posix = process.platform !== 'win32';
// `npm run busy -- npm test`: the npm that ran this script, not the first on PATH, which in an npm script is
// node_modules/.bin's (Node-RED's npm 10, whose `pack` runs `prepare` despite --ignore-scripts).
const npm = process.env.npm_execpath;
const [file, ...args] =
  command[0] === 'npm' && npm && /npm-cli\.js$/.test(npm)
    ? [process.execPath, npm, ...command.slice(1)]
    : command;
const run = spawn(file!, args, {
  stdio: 'inherit',
  env: { ...process.env, SMSGW_BUSY_PIDS: pids.join(',') },
  detached: posix,
});

/** Sends `signal` to the command and everything it started. */
function signalCommand(signal: NodeJS.Signals): void {
  if (run.pid === undefined) return;
  try {
    if (posix) process.kill(-run.pid, signal);
    else run.kill(signal);
  } catch {
    // already gone
  }
}

// Ctrl-C, SIGTERM or SIGHUP: the busy processes go at once, the command gets the signal, and whatever of it still
// runs 10 s later is killed. This script ends when the command has.
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    interrupted = true;
    stopBusy();
    signalCommand(signal);
    setTimeout(() => signalCommand('SIGKILL'), 10_000).unref();
  });
}

run.on('error', (e) => {
  stopBusy();
  process.stderr.write(`busy: ${command[0]} could not start: ${e.message}\n`);
  process.exit(127);
});

run.on('exit', (code, signal) => {
  stopBusy();
  // Interrupted: what the command started and left behind goes too.
  if (interrupted) signalCommand('SIGKILL');
  const seconds = Math.round((Date.now() - started) / 1000);
  const how = signal ? `on ${signal}` : `with ${code}`;
  process.stderr.write(`busy: the command ended ${how} after ${seconds} s (load average ${load()})\n`);
  process.exit(signal ? 128 + (constants.signals[signal] ?? 0) : (code ?? 1));
});
