/**
 * A real Mosquitto broker (Debian's `mosquitto`; .ci/run installs it when missing) for the end-to-end tests: on
 * 127.0.0.1 and a free port, with a config generated here (anonymous, no persistence), logging to its output.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, start, type Started } from '../../scripts/lib/proc';

export interface RunningMosquitto {
  port: number;
  url: string;
  proc: Started;
  stop(): Promise<void>;
}

/** /usr/sbin is not on every PATH; SMSGW_MOSQUITTO names another binary. */
function mosquittoBin(): string {
  if (process.env.SMSGW_MOSQUITTO) return process.env.SMSGW_MOSQUITTO;
  return existsSync('/usr/sbin/mosquitto') ? '/usr/sbin/mosquitto' : 'mosquitto';
}

export async function startMosquitto(dir: string): Promise<RunningMosquitto> {
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const conf = join(dir, 'mosquitto.conf');
  writeFileSync(
    conf,
    [
      `listener ${port} 127.0.0.1`,
      'allow_anonymous true',
      'persistence false',
      'log_dest stderr',
      'log_type error',
      'log_type warning',
      'log_type notice',
      'log_type information',
      'log_type subscribe',
      'connection_messages true',
      '',
    ].join('\n'),
  );
  const proc = start(mosquittoBin(), ['-c', conf], { logFile: join(dir, 'mosquitto.log') });
  try {
    await proc.waitFor(/mosquitto version \S+ running/, 15000);
  } catch (e) {
    await proc.stop();
    throw new Error(`${(e as Error).message}\n(is Debian's mosquitto installed? .ci/run installs it)`, {
      cause: e,
    });
  }
  return { port, url: `mqtt://127.0.0.1:${port}`, proc, stop: () => proc.stop() };
}
