/**
 * The pacing per number of one config node (its Pacing settings): the book (a state file through the store, or
 * memory without a user directory), and what the send gate and the outbox ask of it. With the outbox, an attempt
 * whose number has no room is held in the outbox until its slot (pacing-sender.ts); without it, the send waits
 * in memory (bounded) or, as configured, is refused with PACED. An HLR lookup reaches no phone: not paced.
 * When the config coordinates instances through Redis, the book is there, one for all of them (shared-pacing.ts).
 */
import { LOOKUP_OPERATIONS } from '../../catalogue';
import { numberKey } from '../ask/numbers';
import type { Clock } from '../../reliability/clock';
import type { OutboxEntry } from '../../reliability/outbox';
import type { Pacer, PaceRule, PaceSettings } from '../../reliability/pacing';
import { PaceWaits, type PaceGate, type PaceMode } from '../../reliability/pacing-sender';
import { FilePacer, type FilePacerOptions } from '../../reliability/pacing-file';
import { SharedPacer } from '../../coordination/shared-pacing';
import type { CoordinationHost } from './coordination-host';
import { settingsOf } from '../common/fields';
import { recipientsOf } from '../send/gate-params';
import type { SmsgwConfigDef } from './types';

const MINUTE = 60_000;
/** Sends without the outbox that may wait for their slot at once (one more is refused with QUEUE_FULL). */
const WAITS_MAX = 1000;

export interface PaceConfig {
  settings: PaceSettings;
  mode: PaceMode;
}

/** The config's pacing; undefined while it is off. */
export function paceOf(def: SmsgwConfigDef): PaceConfig | undefined {
  const v = settingsOf('smsgw-config', def);
  if (v.pacing !== true) return undefined;
  const rule = (count: unknown, ms: number): PaceRule[] =>
    typeof count === 'number' && count > 0 ? [{ count, ms }] : [];
  return {
    settings: {
      rules: [
        ...rule(v.pacePerMinute, MINUTE),
        ...rule(v.pacePer15, 15 * MINUTE),
        ...rule(v.pacePerHour, 60 * MINUTE),
      ],
      critical: rule(v.paceCritical, 15 * MINUTE),
    },
    mode: v.paceOver === 'refuse' ? 'refuse' : 'wait',
  };
}

/** The number keys of a message's recipients (distinct); none for a lookup (an HLR lookup reaches no handset). */
export function paceKeys(operation: string, params: Record<string, unknown>): string[] {
  if (LOOKUP_OPERATIONS.has(operation)) return [];
  const keys = new Set<string>();
  for (const r of recipientsOf(params)) keys.add(numberKey(r));
  return [...keys];
}

export class PaceHost implements PaceGate {
  readonly waits: PaceWaits;

  private constructor(
    readonly pacer: Pacer,
    readonly mode: PaceMode,
    readonly clock: Clock,
  ) {
    this.waits = new PaceWaits(this, WAITS_MAX);
  }

  static async open(
    userDir: string | undefined,
    id: string,
    config: PaceConfig,
    clock: Clock,
    options: Pick<FilePacerOptions, 'onDamage' | 'onProblem'> = {},
    coordination?: CoordinationHost,
  ): Promise<PaceHost> {
    // Coordinating through Redis: one book for every instance (Redis away: not sent, never paced alone).
    if (coordination?.link)
      return new PaceHost(
        new SharedPacer(
          coordination.link,
          coordination.key('pacing'),
          config.settings,
          clock,
          coordination.keySpace,
        ),
        config.mode,
        clock,
      );
    const pacer = await FilePacer.open(userDir, id, config.settings, {
      clock,
      ...options,
    });
    return new PaceHost(pacer, config.mode, clock);
  }

  keysOf(entry: Readonly<OutboxEntry>): string[] {
    return paceKeys(entry.operation, entry.params);
  }

  close(): Promise<void> {
    return this.pacer.close();
  }
}
