/**
 * smsgw-dlr: delivery reports (QueryReceivedDLR), one msg each: msg.payload = the SMSReport, msg.topic =
 * the JobId. A StartDate cursor moves with the newest report seen; each poll re-reads a short overlap
 * (late reports) and drops what it already emitted by report Id; full pages of 5000 are followed at once.
 */
import type { Node, NodeAPI, NodeDef, NodeMessage } from 'node-red';
import { attachConfig, requireConfig } from './shared/config';
import { setupPolling, type PollDef } from './shared/poll-node';

interface DlrDef extends NodeDef, PollDef {
  gateway: string;
  finalOnly?: boolean;
  /** Comma-separated report states that count as final (SMSReport.Status values are not in the spec). */
  finalStates?: string;
  /** Minutes back a node with no saved cursor starts from. */
  lookback?: number | string;
}

export interface DlrState {
  /** ISO date of the newest report seen. */
  cursor: string | null;
  /** Report ids emitted recently, with their report date (ms), pruned to the overlap window. */
  seen: Record<string, number>;
}

export const PAGE_LIMIT = 5000;
/** Reports may be written with a date slightly before ones already read; re-read this much. */
export const OVERLAP_MS = 60_000;
/** Pages followed in one poll before yielding to the next interval. */
const MAX_PAGES = 20;
export const DEFAULT_FINAL_STATES = 'DELIVERED,UNDELIV,UNDELIVERABLE,EXPIRED,REJECTED,DELETED,FAILED';

const timeOf = (d: unknown): number | undefined =>
  d instanceof Date && !Number.isNaN(d.getTime()) ? d.getTime() : undefined;

export default (RED: NodeAPI): void => {
  function SmsgwDlr(this: Node, def: DlrDef): void {
    RED.nodes.createNode(this, def);
    start(this, def);
  }

  function start(node: Node, def: DlrDef): void {
    const config = attachConfig(RED, node, def.gateway);
    const finals = new Set(
      (def.finalStates || DEFAULT_FINAL_STATES)
        .split(/[,;\s]+/)
        .map((s) => s.trim().toUpperCase())
        .filter(Boolean),
    );
    const lookbackMs = Math.max(0, Number(def.lookback ?? 60) || 0) * 60_000;
    const warnedInstants = new Set<number>();

    setupPolling<DlrState>(RED, node, def, { cursor: null, seen: {} }, async ({ signal, state }) => {
      const client = requireConfig(config).getClient();
      const seen = new Map(Object.entries(state.seen ?? {}));
      const saved = state.cursor ? Date.parse(state.cursor) : NaN;
      let cursor = Number.isNaN(saved) ? Date.now() - lookbackMs : saved;
      let start = Number.isNaN(saved) ? cursor : cursor - OVERLAP_MS;
      const messages: NodeMessage[] = [];
      for (let page = 0; page < MAX_PAGES; page++) {
        const reports = await client.information.queryReceivedDlr(
          { StartDate: new Date(start), Limit: PAGE_LIMIT },
          { signal },
        );
        let newest = start;
        for (const r of reports) {
          const at = timeOf(r.Date) ?? cursor;
          newest = Math.max(newest, at);
          const id = String(r.Id);
          if (seen.has(id)) continue;
          seen.set(id, at);
          if (def.finalOnly && !finals.has(String(r.Status ?? '').toUpperCase())) continue;
          messages.push({
            payload: r,
            topic: String(r.JobId),
            jobId: r.JobId,
            recipient: r.Recipient,
          } as NodeMessage);
        }
        cursor = Math.max(cursor, newest);
        if (reports.length < PAGE_LIMIT) break;
        if (newest <= start) {
          // A full page all at one instant: StartDate cannot reach past it, so step over that instant.
          if (!warnedInstants.has(start)) {
            warnedInstants.add(start);
            node.warn(
              RED._('smsgw-dlr.errors.sameInstant', {
                limit: PAGE_LIMIT,
                date: new Date(start).toISOString(),
              }),
            );
          }
          start += 1;
          cursor = Math.max(cursor, start);
        } else {
          start = newest;
        }
      }
      const keepFrom = cursor - OVERLAP_MS;
      const pruned: Record<string, number> = {};
      for (const [id, at] of seen) if (at >= keepFrom) pruned[id] = at;
      return { messages, state: { cursor: new Date(cursor).toISOString(), seen: pruned } };
    });
  }

  RED.nodes.registerType('smsgw-dlr', SmsgwDlr);
};
