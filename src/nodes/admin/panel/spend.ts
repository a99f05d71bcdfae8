/**
 * Spend: the units (segments x recipients) the spending guard counted per clock hour over the last 24 hours and
 * per local day over the last 30 days, with each window's limit and warning count and the reserve left for
 * critical sends. The history is the guard's own (its count file, or Redis when the configuration coordinates
 * instances); with no limit set the guard is off and counts nothing. Counts only: no number, no text.
 */
import type { PanelSection } from './registry';

export const spendSection: PanelSection = {
  name: 'spend',
  async data(ctx) {
    const host = ctx.config.reliability?.budget;
    const view = await host?.spend().catch(() => undefined);
    if (!host || !view) return { enabled: false };
    const limits: Record<string, number> = {};
    const warnAt: Record<string, number> = {};
    const counts: Record<string, number> = {};
    for (const w of view.windows) {
      limits[w.window] = w.limit;
      counts[w.window] = w.count;
      if (w.warnAt !== undefined) warnAt[w.window] = w.warnAt;
    }
    return {
      enabled: true,
      shared: host.shared,
      limits,
      warnAt,
      counts,
      reserve: view.reserve,
      reserveLeft: view.reserveLeft,
      ...(host.lost ? { lost: true } : {}),
      hours: view.hours,
      days: view.days,
    };
  },
};
