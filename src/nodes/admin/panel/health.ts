/**
 * Queues and health: the outbox (entries waiting, the oldest's age, those held for quiet hours), the flow
 * control's queue, the readers of the gateway's queues (last poll, whether this instance holds the lease under
 * Redis), the last failed call and what blocks sends now. Counts and times only: no message text, no number.
 */
import { ownsReaders } from '../../polling/reader-host';
import { lastGatewayError } from './live';
import type { PanelContext, PanelSection } from './registry';

async function outboxOf(ctx: PanelContext): Promise<Record<string, unknown>> {
  const host = ctx.config.reliability;
  if (!host) return { enabled: false };
  const listed = await host.list();
  if (!listed.enabled) return { enabled: false };
  let waiting = 0;
  let held = 0;
  let oldest: number | undefined;
  for (const e of listed.entries) {
    const heldUntil = e.notBefore !== undefined ? Date.parse(e.notBefore) : NaN;
    if (heldUntil > ctx.now) held += 1;
    else waiting += 1;
    const created = Date.parse(e.createdAt);
    if (Number.isFinite(created)) oldest = oldest === undefined ? created : Math.min(oldest, created);
  }
  return {
    enabled: listed.enabled,
    waiting,
    held,
    ...(oldest !== undefined ? { oldestAgeMs: Math.max(0, ctx.now - oldest) } : {}),
    ...(listed.problem !== undefined ? { problem: listed.problem } : {}),
  };
}

export const healthSection: PanelSection = {
  name: 'health',
  async data(ctx) {
    const { config } = ctx;
    const health = config.reliability?.health();
    const last = lastGatewayError(config);
    return {
      name: config.name || config.id,
      service: config.service,
      coordinated: config.coordination !== undefined,
      outbox: await outboxOf(ctx),
      queued: health?.depth ?? 0,
      readers: ownsReaders(config) ? config.readerInfo() : [],
      ...(last ? { lastError: last } : {}),
      ...(health?.authFailed !== undefined ? { authFailed: health.authFailed } : {}),
      ...(health?.redisDown !== undefined ? { redisDown: health.redisDown } : {}),
      ...(config.accountError ? { accountError: config.accountError.message } : {}),
    };
  },
};
