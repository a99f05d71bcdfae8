/**
 * Mocha root hooks of every suite (required by the .mocharc.json files): a warning that says our code or a test
 * is wrong fails the run instead of scrolling by.
 *
 * - DEP0137 "Closing file descriptor N on garbage collection": a FileHandle was never closed. Every FileHandle
 *   opened through fs.promises.open is noted with where it was opened, so the failure names the place.
 *   The root afterAll collects garbage before it reports, so a handle dropped late is found too.
 * - A FileHandle our code (or a test) opened that is still open when the run ends: the same leak, found
 *   whether or not the GC came across it.
 * - Any other DeprecationWarning whose stack passes through this repository's own code (not node_modules):
 *   a deprecation of a dependency's own doing is not ours to fix and stays a plain warning.
 *
 * test/lint/warnings.test.ts runs specs that leak on purpose and checks that the run fails, naming the place.
 */
import * as fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const ROOT = path.resolve(__dirname, '..');

/** Where each open FileHandle (by descriptor) was opened. */
const opened = new Map<number, string>();
const problems: string[] = [];

const fsp = fs.promises as { open: typeof fs.promises.open };
const realOpen = fsp.open;
fsp.open = async function open(...args: Parameters<typeof realOpen>): Promise<FileHandle> {
  // Where it was opened, without this wrapper's own frame.
  const mark: { stack?: string } = {};
  Error.captureStackTrace(mark, open);
  const where = `opened${(mark.stack ?? '').replace(/^Error/, '')}`;
  const fh = await realOpen.apply(fs.promises, args);
  const fd = fh.fd;
  opened.set(fd, where);
  // A FileHandle is an EventEmitter (Node >= 15.4), which the types do not say.
  (fh as unknown as NodeJS.EventEmitter).once('close', () => {
    if (opened.get(fd) === where) opened.delete(fd);
  });
  return fh;
};

/** A frame of this repository's own code (sources, tests, scripts, bench), not of a dependency. */
const ours = (stack: string | undefined): boolean =>
  (stack ?? '')
    .split('\n')
    .slice(1)
    .some((line) => line.includes(ROOT) && !line.includes(`${path.sep}node_modules${path.sep}`));

/** Node says "Closing file descriptor N on garbage collection" (a plain Warning), then DEP0137. */
let named = false;
process.on('warning', (w: Error & { code?: string }) => {
  const gced = /Closing file descriptor (\d+) on garbage collection/.exec(w.message);
  if (gced) {
    const fd = Number(gced[1]);
    const where = opened.get(fd) ?? '(opened before this hook was loaded)';
    opened.delete(fd);
    problems.push(`${w.message}: a FileHandle was never closed; ${where}`);
    named = true;
    return;
  }
  if (w.code === 'DEP0137') {
    if (!named) problems.push(w.message);
    named = false;
    return;
  }
  if (w.name === 'DeprecationWarning' && ours(w.stack)) problems.push(w.stack ?? w.message);
});

let gc: (() => void) | undefined;
try {
  setFlagsFromString('--expose-gc');
  gc = runInNewContext('gc') as () => void;
} catch {
  // no GC at hand: the warnings that come during the run are still caught
}

export const mochaHooks = {
  async afterAll(this: Mocha.Context): Promise<void> {
    this.timeout(10_000);
    // Twice, with turns of the event loop between: a handle's cleanup runs after the collection that found it.
    for (let i = 0; i < 2; i++) {
      gc?.();
      await new Promise((r) => setTimeout(r, 50));
    }
    // Handles still open now were never closed: a leak even where the GC has not come across it (yet).
    for (const [fd, where] of opened)
      if (ours(where)) problems.push(`file descriptor ${fd} is still open at the end of the run; ${where}`);
    if (problems.length > 0)
      throw new Error(`warnings that mean a bug (see test/warnings.ts):\n  ${problems.join('\n  ')}`);
  },
};
