/**
 * Durable files: write a temp file, fsync it, rename it over the target, fsync the directory. A write that fails
 * removes its temp file (a failed write never keeps disk space), and `removeStaleTemps` clears those a crash
 * left behind, at start. Files are mode 0600 in a 0700 directory: they hold message texts and phone numbers.
 * Every call goes through the store's file system door (fs.ts).
 */
import { basename, dirname, join } from 'node:path';
import * as sfs from './fs';

let counter = 0;

const TMP = '.tmp-';

export async function writeFileAtomic(file: string, text: string): Promise<void> {
  const tmp = `${file}${TMP}${process.pid}-${++counter}`;
  try {
    const fh = await sfs.open(tmp, 'w', 0o600);
    try {
      await fh.write(text);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await sfs.rename(tmp, file);
  } catch (e) {
    // Written in part (disk full, a size limit) or not renamed: the temp file goes, the target is as it was.
    await sfs.unlink(tmp).catch(() => undefined);
    throw e;
  }
  await syncDir(dirname(file));
}

/** Makes a rename in `dir` durable; not every platform lets a directory be synced (best effort). */
export async function syncDir(dir: string): Promise<void> {
  try {
    const fh = await sfs.open(dir, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    // best effort (Windows)
  }
}

/** True when a process with this id runs (and is not this one). */
function otherProcessRuns(pid: number): boolean {
  if (pid === process.pid || !Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it runs, under another user.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the temp files of `file` that a crash (or an older version's failed write) left behind: this version's
 * `<file>.tmp-<pid>-<n>` and the state files' older `<file>.<pid>.tmp`. Those of another process that runs now
 * are left alone (it may be writing). Returns the names removed.
 */
export async function removeStaleTemps(file: string): Promise<string[]> {
  const dir = dirname(file);
  const base = basename(file);
  let names: string[];
  try {
    names = await sfs.readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    let pid: number;
    if (name.startsWith(base + TMP)) pid = Number(name.slice(base.length + TMP.length).split('-')[0]);
    else if (name.startsWith(base + '.') && name.endsWith('.tmp'))
      pid = Number(name.slice(base.length + 1, -'.tmp'.length));
    else continue;
    if (otherProcessRuns(pid)) continue;
    try {
      await sfs.unlink(join(dir, name));
      removed.push(name);
    } catch {
      // gone already, or not ours to remove
    }
  }
  return removed;
}

/**
 * Makes a directory only this user may enter (0700). One made by an older version with wider rights is narrowed
 * (best effort: a platform without POSIX modes keeps its own).
 */
export async function privateDir(dir: string): Promise<void> {
  await sfs.mkdir(dir, 0o700);
  try {
    const s = await sfs.stat(dir);
    if ((s.mode & 0o077) !== 0) await sfs.chmod(dir, 0o700);
  } catch {
    // best effort (Windows, a directory of another user)
  }
}

/** The file's text, or undefined when it does not exist. */
export async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await sfs.readFile(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** The file's text, or undefined when it does not exist (at node start, where the state is read synchronously). */
export function readIfExistsSync(file: string): string | undefined {
  try {
    return sfs.readFileSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** Copies a damaged file beside it as `<file>.damaged-<ms>` (0600) for a person to look at; undefined if it cannot. */
export function copyAside(file: string, now = Date.now()): string | undefined {
  const aside = `${file}.damaged-${now}`;
  try {
    sfs.copyFileSync(file, aside);
    sfs.chmodSync(aside, 0o600);
    return aside;
  } catch {
    return undefined;
  }
}

/** Removes a file (a deliberate removal: a deleted node's state); a file already gone is fine. */
export async function removeFile(file: string): Promise<void> {
  try {
    await sfs.unlink(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

/** True when `file` exists (a directory in its place counts: it is what stands in the way of a write). */
export function exists(file: string): Promise<boolean> {
  return sfs.access(file);
}

/** Moves a file to another name in one step (a rename: atomic); the target's directory is synced after. */
export async function moveFile(from: string, to: string): Promise<void> {
  await sfs.rename(from, to);
  await syncDir(dirname(to));
}
