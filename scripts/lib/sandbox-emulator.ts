/**
 * The sandbox's emulator as a child that may die without taking the sandbox along: a user may
 * want to see the flows react to a gateway that is gone. Its end is named (pid, exit code or signal), Node-RED
 * and the broker keep running, and it can be started again on the same port with the same state file.
 */
import { join, relative } from 'node:path';
import { emulatorStateFile, startSandboxEmulator } from './sandbox-state';
import type { RunningEmulator } from './emulator';
import { assertPortFree } from './proc';
import { ROOT } from './package';

/** How a child process ended, in words: "exited with code 0", "was killed by SIGKILL". */
export function howItEnded(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `was killed by ${signal}` : `exited with code ${code ?? 'unknown'}`;
}

/** A path as the user would type it from `cwd` (relative when inside it). */
export function shownPath(path: string, cwd = process.cwd()): string {
  const rel = relative(cwd, path);
  return rel && !rel.startsWith('..') ? rel : path;
}

/** The command that starts the sandbox's emulator by hand, as the sandbox starts it. */
export function emulatorCommand(port: number, userDir: string, cwd = process.cwd()): string {
  const bin = shownPath(join(ROOT, 'bin', 'smsgw-emulator.js'), cwd);
  const state = shownPath(emulatorStateFile(userDir), cwd);
  return `node ${bin} --host 127.0.0.1 --port ${port} --state ${state}`;
}

export interface SandboxEmulatorOptions {
  userDir: string;
  /** The port asked for (0: a free one, kept for restarts once known). */
  port: number;
  logFile: string;
  log: (s: string) => void;
  /** Whether the user can type the `emulator` command (stdin is read). */
  canType: () => boolean;
}

export class SandboxEmulator {
  private running: RunningEmulator | undefined;
  private port: number;
  private stopping = false;
  private starting: Promise<RunningEmulator> | undefined;
  /** Started before: a restart appends to the log the dead one wrote. */
  private startedOnce = false;

  constructor(private readonly o: SandboxEmulatorOptions) {
    this.port = o.port;
  }

  get current(): RunningEmulator | undefined {
    return this.running;
  }

  /** Starts it (first start or again after it ended); rejects when the port is taken or the state unreadable. */
  start(): Promise<RunningEmulator> {
    this.starting ??= this.doStart().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async doStart(): Promise<RunningEmulator> {
    if (this.running) return this.running;
    if (this.port !== 0)
      await assertPortFree(this.port, 'something else took it; stop that, then type "emulator" again');
    const emu = await startSandboxEmulator(this.o.userDir, this.port, {
      logFile: this.o.logFile,
      appendLog: this.startedOnce,
    });
    this.startedOnce = true;
    this.port = Number(new URL(emu.url).port);
    this.running = emu;
    const pid = emu.proc.child.pid;
    this.o.log(`gateway emulator started (pid ${pid ?? '?'}): ${emu.url}`);
    emu.proc.child.once('exit', (code, signal) => {
      if (this.running === emu) this.running = undefined;
      if (!this.stopping) this.reportEnd(pid, code, signal);
    });
    return emu;
  }

  private reportEnd(pid: number | undefined, code: number | null, signal: NodeJS.Signals | null): void {
    const log = this.o.log;
    log(
      `the gateway emulator (pid ${pid ?? '?'}) ${howItEnded(code, signal)}; Node-RED and the MQTT broker keep ` +
        `running (calls to the gateway now fail as they would with the gateway gone; its log: ${shownPath(this.o.logFile)})`,
    );
    const by = emulatorCommand(this.port, this.o.userDir);
    log(
      this.o.canType()
        ? `start it again: type "emulator" and Enter here (or run: ${by})`
        : `start it again in another terminal: ${by}`,
    );
  }

  /** The `emulator` command typed into the sandbox: start it when it is not running, else say where it is. */
  async command(): Promise<void> {
    const now = this.running;
    if (now) {
      this.o.log(`the gateway emulator is running (pid ${now.proc.child.pid ?? '?'}): ${now.url}`);
      return;
    }
    try {
      await this.start();
    } catch (e) {
      this.o.log(`could not start the gateway emulator: ${(e as Error).message}`);
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.starting?.catch(() => undefined);
    await this.running?.proc.stop();
  }
}
