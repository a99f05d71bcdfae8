/**
 * One Redis connection shared by everything of one config node (leases, poll state): the client library
 * (@redis/client, an optional dependency) is required here, lazily, only when coordination is switched on.
 * Nothing here imports Node-RED. Commands fail at once while the connection is down (no offline queue):
 * a lease must never be renewed, or a record marked, minutes after the caller gave up on it.
 */
import { EventEmitter } from 'node:events';
import { createHash } from 'node:crypto';
import { GatewayError } from '../errors';

/** The part of a Redis client the coordination uses. */
export interface RedisCommands {
  sendCommand(args: string[]): Promise<unknown>;
}

interface NodeRedisClient extends RedisCommands {
  connect(): Promise<unknown>;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  readonly isReady: boolean;
  close(): Promise<unknown>;
  destroy(): void;
}

type CreateClient = (options: Record<string, unknown>) => NodeRedisClient;

/** The package name, in one place: docs/scaling.md says why this client. */
export const REDIS_PACKAGE = '@redis/client';

let loaded: CreateClient | undefined;

/** Requires the client library on first use; a clear CONFIG error when it is not installed. */
export function loadRedisClient(): CreateClient {
  if (loaded) return loaded;
  let mod: { createClient?: CreateClient };
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    mod = require(REDIS_PACKAGE) as { createClient?: CreateClient };
  } catch (e) {
    throw new GatewayError(
      'CONFIG',
      `coordination through Redis needs the optional package ${REDIS_PACKAGE}; install it in the Node-RED user directory (npm install ${REDIS_PACKAGE})`,
      { cause: e },
    );
  }
  if (typeof mod.createClient !== 'function')
    throw new GatewayError('CONFIG', `${REDIS_PACKAGE} has no createClient()`);
  loaded = mod.createClient;
  return loaded;
}

export interface RedisLinkOptions {
  /** redis://host:port[/db] or rediss://… (a password in the URL is refused: it belongs in the credentials). */
  url: string;
  password?: string | undefined;
  /** Every key starts with this. */
  prefix: string;
  /** A command that takes longer fails (the connection may be half dead). Default 5000 ms. */
  commandTimeoutMs?: number;
  /** For tests: a client instead of the library's. */
  createClient?: CreateClient;
}

export interface RedisLinkEvents {
  /** The connection is usable (again). */
  up: [];
  /** The connection was lost or could not be made; `message` says why. */
  down: [message: string];
}

/** Checks the URL the user typed; the password must come from the credentials. */
export function checkRedisUrl(url: string): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new GatewayError('CONFIG', `the Redis URL "${url}" is not a URL`);
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:')
    throw new GatewayError('CONFIG', 'the Redis URL must start with redis:// or rediss://');
  if (u.password !== '')
    throw new GatewayError(
      'CONFIG',
      'the Redis URL holds a password: put it into the Redis password field (kept with the credentials) instead',
    );
  return u;
}

/** Lua scripts by SHA1, sent by EVALSHA and loaded with EVAL when the server does not know them (a restart). */
export class Script {
  readonly sha: string;
  constructor(readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }
}

export class RedisLink extends EventEmitter<RedisLinkEvents> {
  readonly prefix: string;
  private readonly client: NodeRedisClient;
  private readonly timeoutMs: number;
  private upNow = false;
  private closed = false;
  private lastDown = '';
  private readonly connecting: Promise<void>;

  constructor(options: RedisLinkOptions) {
    super();
    checkRedisUrl(options.url);
    this.prefix = options.prefix;
    this.timeoutMs = options.commandTimeoutMs ?? 5000;
    const create = options.createClient ?? loadRedisClient();
    this.client = create({
      url: options.url,
      ...(options.password ? { password: options.password } : {}),
      disableOfflineQueue: true,
      socket: {
        connectTimeout: this.timeoutMs,
        // Back off to 1 s: a Redis restart is noticed within a second of its return (a cut-off holder notes what
        // it handed on before a new holder's takeover grace ends, coordinated.ts).
        reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 1000),
      },
    });
    this.client.on('ready', () => this.setUp(true, ''));
    this.client.on('end', () => this.setUp(false, 'connection closed'));
    this.client.on('reconnecting', () => this.setUp(false, this.lastDown || 'reconnecting'));
    this.client.on('error', (err: unknown) => {
      // The library reconnects by itself; an error is only a reason to show.
      this.lastDown = err instanceof Error ? err.message || err.name : String(err);
      this.setUp(false, this.lastDown);
    });
    this.connecting = this.client.connect().then(
      () => undefined,
      (err: unknown) => {
        this.lastDown = err instanceof Error ? err.message : String(err);
        this.emit('down', this.lastDown);
      },
    );
  }

  /** True while commands can be sent. */
  get up(): boolean {
    return this.upNow && this.client.isReady;
  }

  /** Why it is down (for the status), or ''. */
  get downReason(): string {
    return this.up ? '' : this.lastDown || 'connecting';
  }

  /** `<prefix><part>:<part>…` */
  key(...parts: string[]): string {
    return this.prefix + parts.join(':');
  }

  /** Resolves once the first connection attempt ended (connected or not). */
  ready(): Promise<void> {
    return this.connecting;
  }

  /** One command, failing after the command timeout. */
  command(args: string[]): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('the Redis connection is closed'));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`Redis did not answer within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
    });
    return Promise.race([this.client.sendCommand(args), timeout]).finally(() => clearTimeout(timer));
  }

  /** Runs a script by its SHA1, loading it on NOSCRIPT (the script cache is empty after a Redis restart). */
  async run(script: Script, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    const tail = [String(keys.length), ...keys, ...args.map(String)];
    try {
      return await this.command(['EVALSHA', script.sha, ...tail]);
    } catch (e) {
      if (!/NOSCRIPT/.test(e instanceof Error ? e.message : String(e))) throw e;
      return this.command(['EVAL', script.source, ...tail]);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.upNow = false;
    await this.connecting;
    try {
      if (this.client.isReady) await this.client.close();
      else this.client.destroy();
    } catch {
      this.client.destroy();
    }
  }

  private setUp(up: boolean, why: string): void {
    if (this.closed) return;
    if (up === this.upNow) return;
    this.upNow = up;
    if (up) {
      this.lastDown = '';
      this.emit('up');
    } else this.emit('down', why);
  }
}
