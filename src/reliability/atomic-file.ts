/**
 * Durable files: write a temp file, fsync it, rename it over the target, fsync the directory. A write that fails
 * removes its temp file (a failed write never keeps disk space), and `removeStaleTemps` clears those a crash
 * left behind, at start.
 */
import { chmod, mkdir, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

let counter = 0;

const TMP = '.tmp-';

export async function writeFileAtomic(file: string, text: string): Promise<void> {
  const tmp = `${file}${TMP}${process.pid}-${++counter}`;
  try {
    const fh = await open(tmp, 'w', 0o600);
    try {
      await fh.writeFile(text, 'utf8');
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, file);
  } catch (e) {
    // Written in part (disk full, a size limit) or not renamed: the temp file goes, the target is as it was.
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
  // The rename is durable only once the directory entry is; not every platform lets a directory be synced.
  try {
    const dir = await open(dirname(file), 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
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
    names = await readdir(dir);
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
      await unlink(join(dir, name));
      removed.push(name);
    } catch {
      // gone already, or not ours to remove
    }
  }
  return removed;
}

/**
 * Makes a directory only this user may enter (0700): it holds message texts and phone numbers. One made by an
 * older version with wider rights is narrowed (best effort: a platform without POSIX modes keeps its own).
 */
export async function privateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  try {
    const s = await stat(dir);
    if ((s.mode & 0o077) !== 0) await chmod(dir, 0o700);
  } catch {
    // best effort (Windows, a directory of another user)
  }
}

/** The file's text, or undefined when it does not exist. */
export async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}
