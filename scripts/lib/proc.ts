import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { createServer } from 'node:net';

/** A port the OS just handed out on 127.0.0.1 (closed again, so a child can bind it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** The environment for children we start: NODE_OPTIONS is dropped so nothing of tsx leaks into them. */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env.NODE_OPTIONS;
  return env;
}

export interface Started {
  child: ChildProcess;
  /** Everything the child printed so far (stdout and stderr interleaved). */
  output(): string;
  /** False once the child exited or could not be started. */
  alive(): boolean;
  /** Resolves with the first match of `re` in the output, rejects when the child exits first or on timeout. */
  waitFor(re: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
  stop(): Promise<void>;
}

export interface StartOptions extends SpawnOptions {
  /** Also write the output to this file (emptied first unless `appendLog`). */
  logFile?: string;
  appendLog?: boolean;
  /** Echo the output to our stdout with this prefix. */
  echoPrefix?: string;
}

export function start(cmd: string, args: string[], opts: StartOptions = {}): Started {
  const { logFile, appendLog, echoPrefix, ...spawnOpts } = opts;
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...spawnOpts });
  let out = '';
  const log = logFile ? createWriteStream(logFile, { flags: appendLog ? 'a' : 'w' }) : undefined;
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer): void => {
    const text = chunk.toString('utf8');
    out += text;
    log?.write(text);
    if (echoPrefix) {
      for (const line of text.split('\n')) if (line.trim()) process.stdout.write(`${echoPrefix}${line}\n`);
    }
    for (const l of listeners) l();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  let spawnError: Error | undefined;
  // a binary that cannot be started emits 'error' instead of 'exit'; unhandled, it would crash the caller
  child.once('error', (e) => {
    spawnError = e;
    out += `\n${cmd}: ${e.message}\n`;
    for (const l of listeners) l();
  });
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  child.once('exit', () => {
    log?.end();
    for (const l of listeners) l();
  });

  return {
    child,
    output: () => out,
    alive: () => !spawnError && child.exitCode === null && child.signalCode === null,
    waitFor(re, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const m = out.match(re);
          if (m) {
            done();
            resolve(m);
          } else if (spawnError || child.exitCode !== null || child.signalCode !== null) {
            done();
            reject(
              new Error(
                `${cmd} exited (${child.exitCode ?? child.signalCode}) before printing ${re}:\n${tail(out)}`,
              ),
            );
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`timed out after ${timeoutMs} ms waiting for ${re} from ${cmd}:\n${tail(out)}`));
        }, timeoutMs);
        const done = (): void => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      });
    },
    async stop() {
      if (spawnError || child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 8000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export function tail(text: string, lines = 30): string {
  return text.split('\n').slice(-lines).join('\n');
}

/** Runs a command to completion; rejects with its output when it fails. `combined` also returns stderr. */
export function run(
  cmd: string,
  args: string[],
  opts: SpawnOptions & { combined?: boolean } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
    let out = '';
    let err = '';
    child.stdout?.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr?.on('data', (c: Buffer) => {
      const text = c.toString('utf8');
      err += text;
      if (opts.combined) out += text;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) resolve(out);
      else reject(new Error(`${cmd} ${args.join(' ')} exited ${code}:\n${tail(out + err)}`));
    });
  });
}

/** Polls `url` until it answers 2xx. */
export async function waitForHttp(url: string, timeoutMs: number, alive?: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    if (alive && !alive()) throw new Error(`process behind ${url} exited`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
      last = `HTTP ${res.status}`;
    } catch (e) {
      last = (e as Error).message;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms (${last})`);
}

/** Runs a command to completion and returns its exit code and combined output, whatever the outcome. */
export function runStatus(
  cmd: string,
  args: string[],
  opts: SpawnOptions = {},
): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
    let output = '';
    child.stdout?.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.stderr?.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), output }));
  });
}

/** Fails with a helpful message when something already listens on 127.0.0.1:`port`. */
export function assertPortFree(port: number, hint: string): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', (e: NodeJS.ErrnoException) =>
      reject(new Error(e.code === 'EADDRINUSE' ? `port ${port} is already in use (${hint})` : e.message)),
    );
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve()));
  });
}
