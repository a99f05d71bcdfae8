/**
 * A real redis-server (Debian's package; .ci/run installs it when missing) on 127.0.0.1 at a free port, with
 * its data in a temporary directory and the append-only file on, so a restart keeps the keys (as the
 * coordination needs of a production Redis: docs/scaling.md).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, start, type Started } from '../../scripts/lib/proc';
import { RedisLink } from '../../src/coordination/redis-link';

export const REDIS_SERVER = process.env.SMSGW_REDIS_SERVER || 'redis-server';

export interface RedisServer {
  port: number;
  url: string;
  dir: string;
  /** Graceful restart (SIGTERM writes the append-only file), same port and data. */
  restart(downMs?: number): Promise<void>;
  /** Stops the server (SIGTERM) and keeps it down until start() (which does nothing while it runs). */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it, removes its data (as a Redis without persistence, or a lost disk) and starts it, same port. */
  restartEmpty(): Promise<void>;
  close(): Promise<void>;
}

export function redisServerVersion(): string {
  try {
    return execFileSync(REDIS_SERVER, ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error(
      `${REDIS_SERVER} is not installed: apt-get install redis-server (or set SMSGW_REDIS_SERVER); .ci/run installs it`,
    );
  }
}

export async function startRedisServer(): Promise<RedisServer> {
  redisServerVersion();
  const dir = mkdtempSync(join(tmpdir(), 'smsgw-redis-'));
  const port = await freePort();
  let proc: Started | undefined;
  const launch = async (): Promise<void> => {
    proc = start(
      REDIS_SERVER,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
        '--protected-mode',
        'yes',
      ],
      {},
    );
    await proc.waitFor(/Ready to accept connections/, 15_000);
  };
  const stop = async (): Promise<void> => {
    const p = proc;
    proc = undefined;
    if (!p || !p.alive()) return;
    p.child.kill('SIGTERM');
    await new Promise<void>((resolve) => {
      if (!p.alive()) return resolve();
      p.child.once('exit', () => resolve());
    });
  };
  await launch();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    dir,
    async restart(downMs = 500) {
      await stop();
      await new Promise((r) => setTimeout(r, downMs));
      await launch();
    },
    stop,
    async start() {
      if (!proc?.alive()) await launch();
    },
    async restartEmpty() {
      await stop();
      for (const name of readdirSync(dir)) rmSync(join(dir, name), { recursive: true, force: true });
      await launch();
    },
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A real redis-server for a describe block, and the RedisLinks its tests open on it (closed with it): call in the
 * describe's body; `link(prefix)` resolves once the link is ready.
 */
export function redisForSuite(): { server(): RedisServer; link(prefix: string): Promise<RedisLink> } {
  let redis: RedisServer | undefined;
  const links: RedisLink[] = [];
  before(async () => {
    redis = await startRedisServer();
  });
  after(async () => {
    await Promise.all(links.map((l) => l.close()));
    await redis?.close();
  });
  return {
    server: () => redis!,
    async link(prefix) {
      const l = new RedisLink({ url: redis!.url, prefix });
      links.push(l);
      await l.ready();
      return l;
    },
  };
}
