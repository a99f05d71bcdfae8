import { readFileSync } from 'node:fs';

/** The child side of bench/lib.ts startChild: announce the URL, answer CPU questions over IPC. */
export function announce(url: string, extra?: (msg: Record<string, unknown>) => unknown): void {
  process.on('message', (m: Record<string, unknown> & { id: number; cmd: string }) => {
    let answer: unknown;
    if (m.cmd === 'cpu') {
      const c = process.cpuUsage();
      answer = (c.user + c.system) / 1000;
    } else answer = extra?.(m);
    process.send!({ id: m.id, answer });
  });
  process.send!({ ready: url });
  process.on('disconnect', () => process.exit(0));
}

/** The server's config: JSON in argv[2], or `@file` for one too large for a command line (bench/lib.ts). */
export const config = <T>(): T => {
  const arg = process.argv[2] ?? '{}';
  return JSON.parse(arg.startsWith('@') ? readFileSync(arg.slice(1), 'utf8') : arg) as T;
};
