/** Durable JSON files: write a temp file, fsync it, rename it over the target, fsync the directory. */
import { open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';

let counter = 0;

export async function writeFileAtomic(file: string, text: string): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}-${++counter}`;
  const fh = await open(tmp, 'w', 0o600);
  try {
    await fh.writeFile(text, 'utf8');
    await fh.sync();
  } finally {
    await fh.close();
  }
  try {
    await rename(tmp, file);
  } catch (e) {
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

/** The file's text, or undefined when it does not exist. */
export async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}
