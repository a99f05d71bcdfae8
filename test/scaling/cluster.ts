/**
 * Two real Node-RED 4.1 runtimes with this package installed from its packed tarball (each in its own user
 * directory, as two replicas would be), the same flows, one Redis. Each can be killed with SIGKILL and started
 * again on the same user directory. Every msg a polling trigger emits is appended synchronously (in the
 * function node that receives it) to the instance's count file: `<instance> <kind> <id>` per line.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { deployFlows, startNodeRed, type RunningNodeRed } from '../../scripts/lib/nodered';
import { ensureBuilt, installInto, packPackage, ROOT } from '../../scripts/lib/package';
import { freePort } from '../../scripts/lib/proc';
import { PASSWORD } from '../reliability/helpers';

export const OUT = process.env.SMSGW_SCALING_OUT || join(ROOT, 'test', 'scaling', 'out');
const nodeRedDir = dirname(require.resolve('node-red/package.json', { paths: [ROOT] }));

let packed: ReturnType<typeof packPackage> | undefined;
function packOnce(): ReturnType<typeof packPackage> {
  packed ??= ensureBuilt(() => undefined).then(() => packPackage(join(OUT, 'pack')));
  return packed;
}

/** The count file's line kind that marks a kill -9 of the instance (after its process exited). */
export const KILLED = 'killed';

export class Instance {
  readonly userDir: string;
  readonly countFile: string;
  port = 0;
  runtime: RunningNodeRed | undefined;
  starts = 0;
  /** When the last start answered (ms since epoch). */
  startedAt = 0;

  constructor(readonly name: string) {
    this.userDir = join(OUT, name, 'userdir');
    this.countFile = join(OUT, name, 'count.log');
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get alive(): boolean {
    return this.runtime?.proc.alive() ?? false;
  }

  async prepare(): Promise<void> {
    rmSync(join(OUT, this.name), { recursive: true, force: true });
    mkdirSync(this.userDir, { recursive: true });
    await installInto(this.userDir, await packOnce(), () => undefined);
    appendFileSync(this.countFile, '');
  }

  async start(): Promise<void> {
    this.port = await freePort();
    this.starts += 1;
    this.runtime = await startNodeRed({
      nodeRedDir,
      nodeBin: process.execPath,
      userDir: this.userDir,
      port: this.port,
      freshFlows: this.starts === 1,
      logFile: join(OUT, this.name, `node-red-${this.starts}.log`),
      settings: { functionExternalModules: true, logging: { console: { level: 'info' } } },
      env: { SMSGW_INSTANCE: this.name, SMSGW_COUNT_FILE: this.countFile },
    });
    this.startedAt = Date.now();
  }

  /** kill -9: no close handler runs, nothing is flushed. */
  async kill(): Promise<void> {
    const proc = this.runtime?.proc;
    this.runtime = undefined;
    if (!proc || !proc.alive()) return;
    const exited = new Promise<void>((resolve) => proc.child.once('exit', () => resolve()));
    proc.child.kill('SIGKILL');
    await exited;
    // After the exit nothing more of this life can be counted: the marker ends its lines in the count file.
    appendFileSync(this.countFile, `${this.name} ${KILLED} -\n`);
  }

  async stop(): Promise<void> {
    const proc = this.runtime?.proc;
    this.runtime = undefined;
    await proc?.stop();
  }

  deploy(flows: unknown[]): Promise<void> {
    return deployFlows(this.url, flows);
  }

  /** Everything this instance's runtimes printed (all starts). */
  log(): string {
    let out = '';
    for (let i = 1; i <= this.starts; i++) {
      const f = join(OUT, this.name, `node-red-${i}.log`);
      if (existsSync(f)) out += readFileSync(f, 'utf8');
    }
    return out;
  }

  /** What the runtime started last printed. */
  currentLog(): string {
    const f = join(OUT, this.name, `node-red-${this.starts}.log`);
    return existsSync(f) ? readFileSync(f, 'utf8') : '';
  }

  counted(): string[] {
    return readFileSync(this.countFile, 'utf8').split('\n').filter(Boolean);
  }
}

/**
 * The gateway configuration node of a flow deployed to the instances: coordinated through the test's Redis, the
 * emulator's demo account; `extra` adds settings (outbox, ...).
 */
export function coordinatedConfig(
  o: { emulatorUrl: string; redisUrl: string; prefix: string; leaseS: number },
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    id: 'cfg',
    type: 'smsgw-config',
    name: 'gateway',
    baseUrl: o.emulatorUrl,
    service: 'gateway',
    transport: 'soap11',
    coordinate: true,
    redisUrl: o.redisUrl,
    redisPrefix: o.prefix,
    redisLease: o.leaseS,
    ...extra,
    credentials: { user: 'demo', password: PASSWORD },
  };
}

/** The function node that counts: appends synchronously, so a record counts once the next node ran for it. */
export function counterNode(id: string, kind: string, idExpr: string): Record<string, unknown> {
  return {
    id,
    type: 'function',
    name: `count ${kind}`,
    func: `fs.appendFileSync(env.get('SMSGW_COUNT_FILE'), env.get('SMSGW_INSTANCE') + ' ${kind} ' + (${idExpr}) + '\\n');\nreturn null;`,
    outputs: 1,
    libs: [{ var: 'fs', module: 'fs' }],
    wires: [[]],
  };
}
