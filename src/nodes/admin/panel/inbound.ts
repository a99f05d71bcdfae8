/**
 * Inbound: the last messages the configuration's reader of new messages handed on, newest first, each with its
 * time, sender (masked unless revealed), text and who took it (an inbound trigger, an ask node's question). Kept in
 * memory only, per configuration and at most INBOUND_KEPT (the oldest goes): nothing new on disk, so after a
 * restart or a redeploy of the configuration the list starts empty. The text came from a phone: it is cut to
 * INBOUND_TEXT_MAX characters with its control characters made visible, and the editor shows it as text.
 */
import type { SmsgwConfigNode } from '../../config/config-node';
import { CLAIMED_BY_ASK } from '../../ask/replies';
import { inboundDate, inboundKey, type InboundRecord } from '../../polling/inbound-queue';
import type { RecordMarks } from '../../polling/queue-reader';
import { safeText } from '../../../text/untrusted';
import { panelChanged } from './live';
import type { PanelSection } from './registry';

/** Messages kept per configuration. */
export const INBOUND_KEPT = 50;
/** Longest text kept of a message (a long SMS is up to 1,530 characters; the panel shows its start). */
export const INBOUND_TEXT_MAX = 320;

/** Who took a message: an inbound trigger (it emitted it or left it out), an ask node (a reply to its question). */
export type InboundTaker = 'trigger' | 'ask';

export interface InboundEntry {
  key: string;
  /** The message's date as the gateway gave it, else when it was read (ms). */
  at: number;
  from: string;
  text: string;
  by: InboundTaker[];
}

/** The last `max` messages by their key, oldest first; a message seen again only adds who took it. */
export class InboundList {
  private readonly entries: InboundEntry[] = [];

  constructor(private readonly max: number = INBOUND_KEPT) {}

  /** Notes a message (or another taker of one kept); true when the list changed. */
  note(entry: Omit<InboundEntry, 'by'>, by: InboundTaker | undefined): boolean {
    const kept = this.entries.find((e) => e.key === entry.key);
    if (kept) {
      if (by === undefined || kept.by.includes(by)) return false;
      kept.by.push(by);
      return true;
    }
    this.entries.push({ ...entry, by: by === undefined ? [] : [by] });
    if (this.entries.length > this.max) this.entries.splice(0, this.entries.length - this.max);
    return true;
  }

  /** Newest first. */
  list(): readonly InboundEntry[] {
    return [...this.entries].reverse();
  }
}

const lists = new WeakMap<object, InboundList>();

const pick = (r: InboundRecord, ...names: string[]): unknown =>
  names.map((n) => r[n]).find((v) => v !== undefined);

/**
 * The configuration's reader handed `records` to a listener (`first`: a first taker, the ask hub or the opt-out
 * list; otherwise an inbound trigger) with the first takers' marks: kept for the panel, and the panel told.
 */
export function noteInbound(
  config: SmsgwConfigNode,
  records: readonly InboundRecord[],
  marks: readonly (RecordMarks | undefined)[],
  first: boolean,
  now: number = Date.now(),
): void {
  let list = lists.get(config);
  if (!list) lists.set(config, (list = new InboundList()));
  let changed = false;
  records.forEach((r, i) => {
    const claimed = marks[i]?.claimedBy === CLAIMED_BY_ASK;
    const by: InboundTaker | undefined = claimed ? 'ask' : first ? undefined : 'trigger';
    const entry = {
      key: inboundKey(r),
      at: inboundDate(r) ?? now,
      from: safeText(pick(r, 'Sender', 'sender') ?? '', 40),
      text: safeText(pick(r, 'Text', 'message', 'Message', 'text', 'raw') ?? '', INBOUND_TEXT_MAX),
    };
    if (list.note(entry, by)) changed = true;
  });
  if (changed) panelChanged(config);
}

export const inboundSection: PanelSection = {
  name: 'inbound',
  data(ctx) {
    const list = lists.get(ctx.config);
    return {
      max: INBOUND_KEPT,
      messages: (list?.list() ?? []).map((e) => ({
        at: e.at,
        from: ctx.shown(e.from),
        text: e.text,
        by: e.by,
      })),
    };
  },
};
