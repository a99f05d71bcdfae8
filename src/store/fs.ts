/**
 * The one door to the file system for every state file of the package: every store makes its calls through
 * these functions, so the fault suite can make any one of them fail as a disk would (EIO, ENOSPC, EACCES, a
 * rename that fails) at a chosen call, without root-proof tricks (running as root, chmod cannot make EACCES).
 * Outside tests no injector is set and each function is the plain Node call behind one `if`.
 */
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';

/** What a call does, as a fault injector sees it. */
export type FsOp =
  | 'open'
  | 'write'
  | 'sync'
  | 'close'
  | 'rename'
  | 'unlink'
  | 'mkdir'
  | 'chmod'
  | 'read'
  | 'stat'
  | 'copy'
  | 'readdir';

/** Returns an error code (e.g. 'EIO') to make the call fail with it, or undefined to let it run. */
export type FaultInjector = (op: FsOp, path: string) => string | undefined;

let injector: FaultInjector | undefined;

/** Tests: every store call asks `fn` first. Returns the function that takes it out again. */
export function injectFaults(fn: FaultInjector): () => void {
  injector = fn;
  return () => {
    if (injector === fn) injector = undefined;
  };
}

const MESSAGES: Record<string, string> = {
  EIO: 'i/o error',
  ENOSPC: 'no space left on device',
  EACCES: 'permission denied',
  EROFS: 'read-only file system',
  EISDIR: 'illegal operation on a directory',
  EXDEV: 'cross-device link not permitted',
  ENOENT: 'no such file or directory',
  EPERM: 'operation not permitted',
};

/** An error shaped as Node's own for the call (code, syscall, path). */
function fault(code: string, op: FsOp, path: string): NodeJS.ErrnoException {
  const err = new Error(
    `${code}: ${MESSAGES[code] ?? 'injected fault'}, ${op} '${path}'`,
  ) as NodeJS.ErrnoException;
  err.code = code;
  err.syscall = op;
  err.path = path;
  return err;
}

function check(op: FsOp, path: string): void {
  if (!injector) return;
  const code = injector(op, path);
  if (code) throw fault(code, op, path);
}

/** An open file: each call goes through the injector with the file's path. */
export class StoreHandle {
  constructor(
    private readonly fh: fsp.FileHandle,
    readonly path: string,
  ) {}

  get fd(): number {
    return this.fh.fd;
  }

  async write(data: string | Uint8Array): Promise<void> {
    check('write', this.path);
    await this.fh.writeFile(data);
  }

  /** Writes all of `bytes` at once, synchronously (the journal's appends: see outbox-journal.ts). */
  writeSync(bytes: Uint8Array): void {
    check('write', this.path);
    for (let at = 0; at < bytes.length;) at += fs.writeSync(this.fh.fd, bytes, at, bytes.length - at);
  }

  async sync(): Promise<void> {
    check('sync', this.path);
    await this.fh.sync();
  }

  async datasync(): Promise<void> {
    check('sync', this.path);
    await this.fh.datasync();
  }

  async close(): Promise<void> {
    await this.fh.close();
  }
}

export async function open(path: string, flags: string, mode?: number): Promise<StoreHandle> {
  check('open', path);
  return new StoreHandle(await fsp.open(path, flags, mode), path);
}

export async function rename(from: string, to: string): Promise<void> {
  check('rename', to);
  await fsp.rename(from, to);
}

export async function unlink(path: string): Promise<void> {
  check('unlink', path);
  await fsp.unlink(path);
}

export async function mkdir(path: string, mode: number): Promise<void> {
  check('mkdir', path);
  await fsp.mkdir(path, { recursive: true, mode });
}

export async function chmod(path: string, mode: number): Promise<void> {
  check('chmod', path);
  await fsp.chmod(path, mode);
}

export async function stat(path: string): Promise<fs.Stats> {
  check('stat', path);
  return fsp.stat(path);
}

export function statSync(path: string): fs.Stats {
  check('stat', path);
  return fs.statSync(path);
}

export async function readFile(path: string): Promise<string> {
  check('read', path);
  return fsp.readFile(path, 'utf8');
}

export function readFileSync(path: string): string {
  check('read', path);
  return fs.readFileSync(path, 'utf8');
}

export async function readdir(path: string): Promise<string[]> {
  check('readdir', path);
  return fsp.readdir(path);
}

export async function access(path: string): Promise<boolean> {
  try {
    check('stat', path);
    await fsp.access(path);
    return true;
  } catch {
    return false;
  }
}

export function copyFileSync(from: string, to: string): void {
  check('copy', to);
  fs.copyFileSync(from, to);
}

export function chmodSync(path: string, mode: number): void {
  check('chmod', path);
  fs.chmodSync(path, mode);
}
