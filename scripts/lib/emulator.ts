import { join } from 'node:path';
import { ROOT } from './package';
import { childEnv, start, type Started } from './proc';

export interface RunningEmulator {
  url: string;
  proc: Started;
}

/** Starts `bin/smsgw-emulator.js` on 127.0.0.1 and waits for its `listening on http://HOST:PORT` line. */
export async function startEmulatorProcess(port: number, opts: { logFile?: string; echo?: boolean } = {}) {
  const proc = start(
    process.execPath,
    [join(ROOT, 'bin', 'smsgw-emulator.js'), '--host', '127.0.0.1', '--port', String(port)],
    {
      cwd: ROOT,
      env: childEnv(),
      ...(opts.logFile ? { logFile: opts.logFile } : {}),
      ...(opts.echo ? { echoPrefix: '[emulator] ' } : {}),
    },
  );
  const m = await proc.waitFor(/listening on (http:\/\/[^\s]+)/, 20000);
  const url = (m[1] ?? '').replace(/\/$/, '');
  return { url, proc } satisfies RunningEmulator;
}
