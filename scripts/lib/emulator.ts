import { join } from 'node:path';
import { ROOT } from './package';
import { childEnv, start, type Started } from './proc';

export interface RunningEmulator {
  url: string;
  proc: Started;
}

/**
 * Starts `bin/smsgw-emulator.js` on 127.0.0.1 and waits for its `listening on http://HOST:PORT` line. With
 * `stateFile` the emulator loads its state from that file and saves it there (on change and when stopped).
 */
export async function startEmulatorProcess(
  port: number,
  opts: { logFile?: string; appendLog?: boolean; echo?: boolean; stateFile?: string } = {},
) {
  const proc = start(
    process.execPath,
    [
      join(ROOT, 'bin', 'smsgw-emulator.js'),
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      ...(opts.stateFile ? ['--state', opts.stateFile] : []),
    ],
    {
      cwd: ROOT,
      env: childEnv(),
      ...(opts.logFile ? { logFile: opts.logFile, appendLog: opts.appendLog === true } : {}),
      ...(opts.echo ? { echoPrefix: '[emulator] ' } : {}),
    },
  );
  const m = await proc.waitFor(/listening on (http:\/\/[^\s]+)/, 20000);
  const url = (m[1] ?? '').replace(/\/$/, '');
  return { url, proc } satisfies RunningEmulator;
}
