import {
  startEmulator,
  type EmulatorOptions,
  type GatewayState,
  type RunningEmulator,
} from '../../src/emulator';
import type { ActiveFault, FaultKind } from '../../src/emulator/wire/fault-injection';
import { captionMatchOf, type CaptionMatch } from '../../src/emulator/state/options';

export const PASSWORD = 'pw-Sec&ret';

/** `npm run test:reliability` runs the full sizes; `npm test` a smaller variant of the same tests. */
export const FULL = process.env.SMSGW_RELIABILITY_FULL === '1';

/**
 * How the emulator's caption queries match (exact or prefix): `npm run test:reliability` runs the whole suite
 * once per mode (SMSGW_CAPTION_MATCH), since nothing may depend on how the real gateway matches captions.
 */
export const CAPTION_MATCH: CaptionMatch = captionMatchOf(process.env.SMSGW_CAPTION_MATCH || undefined);

/** Deterministic pseudo-random numbers (mulberry32). */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const FAULT_KINDS: readonly FaultKind[] = ['delay', 'reset', 'commitThenDrop', 'http503', 'truncate'];

export interface FaultFigures {
  requests: number;
  faulted: number;
  byKind: Record<string, number>;
}

/**
 * Hits a share of the emulator's operation requests (sends and lookups alike) with a random fault kind. The
 * emulator asks its FaultInjector once per operation request; this answers for it.
 */
export function injectRandomFaults(
  emu: RunningEmulator,
  opts: { share: number; seed: number; delayMs: number },
): FaultFigures {
  const rnd = seeded(opts.seed);
  const figures: FaultFigures = { requests: 0, faulted: 0, byKind: {} };
  const original = emu.faults.take.bind(emu.faults);
  emu.faults.take = (operation: string | undefined): ActiveFault | undefined => {
    figures.requests++;
    if (rnd() >= opts.share) return original(operation);
    const kind = FAULT_KINDS[Math.floor(rnd() * FAULT_KINDS.length)]!;
    figures.faulted++;
    figures.byKind[kind] = (figures.byKind[kind] ?? 0) + 1;
    return { kind, remaining: 0, ms: kind === 'delay' ? opts.delayMs : 0, operation: undefined };
  };
  return figures;
}

export function quietEmulator(
  extra: Omit<EmulatorOptions, 'backend'> & { backend?: GatewayState } = {},
): Promise<RunningEmulator> {
  return startEmulator<GatewayState>({
    password: PASSWORD,
    balance: 1e9,
    console: false,
    timing: { processingMs: 0, deliveryMs: 0 },
    requestLogSize: 1,
    captionMatch: CAPTION_MATCH,
    ...extra,
  });
}

/** Runs `fn` for 0..n-1 with at most `concurrency` at once; collects every outcome. */
export async function pool<T>(
  n: number,
  concurrency: number,
  fn: (i: number) => Promise<T>,
): Promise<Array<PromiseSettledResult<T>>> {
  const out: Array<PromiseSettledResult<T>> = new Array(n);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < n) {
      const i = next++;
      try {
        out[i] = { status: 'fulfilled', value: await fn(i) };
      } catch (reason) {
        out[i] = { status: 'rejected', reason };
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return out;
}

/** Jobs per message: the caption of message i starts with `${tag}${i} ` (the reference follows). */
export function jobsPerMessage(emu: RunningEmulator, tag: string, n: number): number[] {
  const counts = new Array<number>(n).fill(0);
  const re = new RegExp(`^${tag}(\\d+) #`);
  for (const job of emu.state.jobs()) {
    const m = re.exec(job.caption);
    if (m) counts[Number(m[1])]! += 1;
  }
  return counts;
}

/** Optional figure printing: SMSGW_FIGURES=1 or the test:reliability script. */
export function report(title: string, figures: Record<string, unknown>): void {
  if (process.env.SMSGW_FIGURES !== '1') return;
  console.log(`      ${title}: ${JSON.stringify(figures)}`);
}
