/**
 * A lease in Redis: one holder at a time among the instances that share a key. Taken with SET NX PX under a
 * random token, renewed at a third of its time by a script that checks the token, released on stop by one that
 * checks it too. Every write a holder makes goes through a script that checks the same token (fencing), so an
 * instance that lost its lease (paused, cut off from Redis) cannot write once another holds it.
 *
 * The holder trusts its lease only until `sentAt + leaseMs` of its last successful renewal (measured from when
 * the command was sent, so never longer than Redis keeps the key) minus a safety margin: past that it stops
 * by itself, even while Redis cannot be reached to tell it. Waiters wake when the key's time runs out (PTTL),
 * so the next holder takes over milliseconds after the lapse.
 */
import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import { Script, type RedisLink } from './redis-link';

/** A period of holding: writes and emits check that it is still the current one. */
export interface Hold {
  readonly token: string;
  readonly generation: number;
}

export interface LeaseEvents {
  acquired: [hold: Hold];
  /** `taken`: another instance holds it now; `expired`: not renewed in time (Redis unreachable). */
  lost: [reason: 'taken' | 'expired' | 'stopped'];
}

export const RENEW = new Script(
  "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0",
);
export const RELEASE = new Script(
  "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0",
);

export interface LeaseOptions {
  leaseMs: number;
  now?: () => number;
}

export class Lease extends EventEmitter<LeaseEvents> {
  readonly leaseMs: number;
  /** Time kept free at the end of a lease: nothing is started that late. */
  readonly marginMs: number;
  private token: string | undefined;
  private generation = 0;
  private holding = false;
  private validUntil = 0;
  private timer: NodeJS.Timeout | undefined;
  private lapse: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private readonly now: () => number;

  constructor(
    private readonly link: RedisLink,
    readonly key: string,
    options: LeaseOptions,
  ) {
    super();
    this.leaseMs = Math.max(300, Math.round(options.leaseMs));
    this.marginMs = Math.min(1000, Math.round(this.leaseMs / 5));
    this.now = options.now ?? (() => performance.now());
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.link.on('up', this.onUp);
    this.schedule(0);
  }

  /** The current hold while it can still be trusted for more than the margin. */
  current(): Hold | undefined {
    if (!this.holding || !this.token || this.validForMs() <= 0) return undefined;
    return { token: this.token, generation: this.generation };
  }

  /** True while `hold` is the current one and has time left. */
  isCurrent(hold: Hold): boolean {
    return this.holding && hold.generation === this.generation && this.validForMs() > 0;
  }

  /** Milliseconds the hold can still be trusted (0 when not holding). */
  validForMs(): number {
    if (!this.holding) return 0;
    return Math.max(0, this.validUntil - this.marginMs - this.now());
  }

  get held(): boolean {
    return this.current() !== undefined;
  }

  /** Stops renewing and releases the lease (so another instance takes over at once). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.link.off('up', this.onUp);
    if (this.timer) clearTimeout(this.timer);
    if (this.lapse) clearTimeout(this.lapse);
    this.timer = this.lapse = undefined;
    await this.running;
    const token = this.token;
    const was = this.holding;
    this.drop();
    if (was) this.emit('lost', 'stopped');
    if (token && this.link.up) await this.link.run(RELEASE, [this.key], [token]).catch(() => undefined);
  }

  private readonly onUp = (): void => {
    // Back after an outage: renew (or wait for) the lease now rather than at the next timer.
    if (!this.running) this.schedule(0);
  };

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.tick().finally(() => {
        this.running = undefined;
      });
    }, ms);
  }

  private async tick(): Promise<void> {
    const third = Math.round(this.leaseMs / 3);
    let next = third;
    try {
      if (this.token) {
        const sentAt = this.now();
        const r = await this.link.run(RENEW, [this.key], [this.token, this.leaseMs]);
        if (Number(r) === 1) this.confirm(sentAt);
        else {
          const was = this.holding;
          this.drop();
          if (was) this.emit('lost', 'taken');
        }
      }
      if (!this.token && !this.stopped) {
        const token = randomBytes(12).toString('hex');
        const sentAt = this.now();
        const r = await this.link.command(['SET', this.key, token, 'NX', 'PX', String(this.leaseMs)]);
        if (r === 'OK') {
          this.token = token;
          this.confirm(sentAt);
        } else {
          // Someone holds it: look again right after its time runs out (or at a third, whichever is first).
          const pttl = Number(await this.link.command(['PTTL', this.key]));
          next = pttl > 0 ? Math.min(pttl + 5, third) : 5;
        }
      }
    } catch {
      // Redis unreachable: keep the token (it may still be ours once Redis is back), try again soon; the
      // local lapse timer ends the hold when its time is up.
      next = Math.min(third, 1000);
    }
    if (this.stopped) return;
    this.schedule(next);
  }

  private confirm(sentAt: number): void {
    this.validUntil = sentAt + this.leaseMs;
    if (this.lapse) clearTimeout(this.lapse);
    this.lapse = setTimeout(() => this.expire(), Math.max(0, this.validUntil - this.marginMs - this.now()));
    if (!this.holding) {
      this.holding = true;
      this.generation += 1;
      this.emit('acquired', { token: this.token!, generation: this.generation });
    }
  }

  private expire(): void {
    this.lapse = undefined;
    if (!this.holding || this.validForMs() > 0) return;
    this.holding = false;
    this.generation += 1;
    this.emit('lost', 'expired');
  }

  private drop(): void {
    this.token = undefined;
    if (this.lapse) clearTimeout(this.lapse);
    this.lapse = undefined;
    if (this.holding) {
      this.holding = false;
      this.generation += 1;
    }
  }
}
