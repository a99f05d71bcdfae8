/**
 * What the sandbox keeps between starts. Node-RED keeps its flows, credentials and poller cursors in the userDir;
 * the emulator keeps its jobs, reports, balance and id counters in a file beside them, so a poller's cursor never
 * meets a JobId the emulator hands out a second time. `--fresh` forgets both together.
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startEmulatorProcess, type RunningEmulator } from './emulator';

/** The emulator's state file inside the sandbox userDir (loaded at start, saved on change and at exit). */
export const emulatorStateFile = (userDir: string): string => join(userDir, 'emulator-state.json');

/**
 * The sandbox's emulator: on 127.0.0.1:`port`, its state in the userDir (see emulatorStateFile). A state file
 * it cannot read stops the start with a hint instead of starting empty behind Node-RED's back.
 */
export function startSandboxEmulator(
  userDir: string,
  port: number,
  opts: { logFile?: string; appendLog?: boolean } = {},
): Promise<RunningEmulator> {
  const stateFile = emulatorStateFile(userDir);
  return startEmulatorProcess(port, { ...opts, stateFile }).catch((e: unknown) => {
    throw new Error(
      `${(e as Error).message}\n(if ${stateFile} is damaged: npm start -- --fresh starts the sandbox from nothing)`,
    );
  });
}

/** The installed package and its install cache: the same after a fresh start, and slow to install again. */
const INSTALLED = new Set([
  'node_modules',
  'package.json',
  'package-lock.json',
  '.pack',
  '.smsgw-installed',
  'smsgw-package.tgz',
]);

/**
 * Empties the userDir but for the installed package: flows, credentials, settings, context, poller cursors,
 * the outbox, logs and the emulator's state file. Returns the names removed.
 */
export function freshUserDir(userDir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(userDir);
  } catch {
    return []; // no sandbox yet
  }
  const removed = names.filter((n) => !INSTALLED.has(n));
  for (const n of removed) rmSync(join(userDir, n), { recursive: true, force: true });
  return removed.sort();
}
