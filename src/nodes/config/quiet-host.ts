/**
 * The quiet hours of one config node (its Quiet hours settings): from when a send of a send node may go out.
 * The window is read in the configured time zone (blank: the host's), or, with "per recipient" on, in the zone
 * a recipient's number implies when its country has one (recipient-zone.ts), else the configured one. A message
 * to several recipients waits until every recipient's window is open (one entry of the outbox is one send: it
 * is not split, so that it still goes out exactly once).
 */
import { numberKey } from '../ask/numbers';
import { hostZone, openFrom, clockMinutes, type QuietWindow } from '../../reliability/quiet-hours';
import { zoneOfNumber } from '../../reliability/recipient-zone';
import { settingsOf } from '../common/fields';
import type { SmsgwConfigDef } from './types';

export interface QuietSettings {
  /** Minutes after local midnight. */
  start: number;
  end: number;
  zone: string;
  byRecipient: boolean;
}

/** The config's quiet hours; undefined while they are off (or the window is empty: start = end). */
export function quietOf(def: SmsgwConfigDef): QuietSettings | undefined {
  const v = settingsOf('smsgw-config', def);
  if (v.quietHours !== true) return undefined;
  const start = clockMinutes(v.quietStart);
  const end = clockMinutes(v.quietEnd);
  if (start === undefined || end === undefined || start === end) return undefined;
  const zone = typeof v.quietZone === 'string' && v.quietZone !== '' ? v.quietZone : hostZone();
  return { start, end, zone, byRecipient: v.quietByRecipient !== false };
}

export class QuietHours {
  private readonly base: QuietWindow;
  /** One window per zone met (a handful: the zones of the recipients' countries). */
  private readonly windows = new Map<string, QuietWindow>();

  constructor(readonly settings: QuietSettings) {
    this.base = { start: settings.start, end: settings.end, zone: settings.zone };
    this.windows.set(settings.zone, this.base);
  }

  /**
   * When a message to `recipients` may go out: undefined now, an instant, or Infinity when the recipients'
   * windows leave no common open time (their zones are too far apart for the window).
   */
  openFrom(now: number, recipients: readonly string[]): number | undefined {
    if (!this.settings.byRecipient || recipients.length === 0) return openFrom(now, [this.base]);
    if (recipients.length === 1) return openFrom(now, [this.windowOf(recipients[0]!)]);
    const seen = new Set<QuietWindow>();
    for (const r of recipients) seen.add(this.windowOf(r));
    return openFrom(now, [...seen]);
  }

  private windowOf(recipient: string): QuietWindow {
    const zone = zoneOfNumber(numberKey(recipient)) ?? this.settings.zone;
    let w = this.windows.get(zone);
    if (!w) {
      w = { start: this.settings.start, end: this.settings.end, zone };
      // At most the zones Intl knows (a few hundred).
      this.windows.set(zone, w);
    }
    return w;
  }
}
