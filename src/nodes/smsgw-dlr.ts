/**
 * smsgw-dlr: delivery reports (QueryReceivedDLR), one msg each: msg.payload = the SMSReport, msg.topic =
 * the JobId, msg.statusKind = final / pending / unknown. A StartDate cursor moves with the newest report seen;
 * each poll re-reads a short overlap (late reports) and drops what it already emitted by report Id; full pages
 * of 5000 are followed at once. "Final states only" leaves out only the states known to be pending: a status in
 * neither list is passed on (with one warning per status), since both lists are guesses.
 */
import type { Node, NodeAPI, NodeDef, NodeMessage } from 'node-red';
import { attachConfig, requireConfig } from './config/config';
import { setupPolling, type PollDef } from './polling/poll-node';
import { PAGE_LIMIT, readNewReports, type ReportCursor } from './polling/report-cursor';
import { unusable, type Unusable } from './polling/odd-records';
import { ReportStatuses, statusOf, type StatusKind } from './polling/report-status';
import type { SMSReport } from '../client/types.generated';
import { safeText } from '../text/untrusted';
import { deployFields } from './common/fields';

interface DlrDef extends NodeDef, PollDef {
  gateway: string;
  finalOnly?: boolean;
  /** Comma-separated report states that count as final (SMSReport.Status values are not in the spec). */
  finalStates?: string;
  /** Comma-separated report states known to come before a final one (left out with finalOnly). */
  pendingStates?: string;
  /** Minutes back a node with no saved cursor starts from. */
  lookback?: number | string;
}

export type DlrState = ReportCursor;

const reportMsg = (r: SMSReport, statusKind?: StatusKind): NodeMessage =>
  ({ payload: r, topic: String(r.JobId), jobId: r.JobId, recipient: r.Recipient, statusKind }) as NodeMessage;

export default (RED: NodeAPI): void => {
  function SmsgwDlr(this: Node, def: DlrDef): void {
    RED.nodes.createNode(this, def);
    // Every setting judged by its rule (src/nodes/fields/triggers.ts); a refused one: the node only says why.
    const values = deployFields(RED, this, 'smsgw-dlr', def);
    if (values) start(this, { ...def, interval: values.interval as number }, values);
  }

  function start(node: Node, def: DlrDef, values: Record<string, unknown>): void {
    const config = attachConfig(RED, node, def.gateway);
    const statuses = ReportStatuses.from(values.finalStates, values.pendingStates);
    const warnedStatuses = new Set<string>();
    const warnUnknown = (status: string): void => {
      if (warnedStatuses.has(status)) return;
      warnedStatuses.add(status);
      node.warn(RED._('smsgw-dlr.errors.unknownStatus', { status: safeText(status) }));
    };
    const lookbackMs = (values.lookback as number) * 60_000;
    const warnedInstants = new Set<number>();

    setupPolling<DlrState>(
      RED,
      node,
      def,
      { cursor: null, seen: {} },
      async ({ signal, state, onWarning }) => {
        const client = requireConfig(config).getClient();
        const messages: NodeMessage[] = [];
        const rejected: Unusable[] = [];
        const next = await readNewReports(state, {
          lookbackMs,
          now: Date.now(),
          query: (start, limit) =>
            client.information.queryReceivedDlr({ StartDate: start, Limit: limit }, { signal, onWarning }),
          // A report whose Id is raw text cannot be told apart by the cursor: the error path, once.
          onUnusable: (reports) => {
            for (const r of reports)
              rejected.push(unusable('information', 'QueryReceivedDLR', 'Id', r.Id, reportMsg(r)));
          },
          onPage: (fresh) => {
            for (const r of fresh) {
              const statusKind = statuses.kindOf(r.Status);
              if (values.finalOnly && statusKind === 'pending') continue;
              if (values.finalOnly && statusKind === 'unknown') warnUnknown(statusOf(r.Status));
              messages.push(reportMsg(r, statusKind));
            }
          },
          onSameInstant: (start) => {
            if (warnedInstants.has(start)) return;
            warnedInstants.add(start);
            node.warn(
              RED._('smsgw-dlr.errors.sameInstant', {
                limit: PAGE_LIMIT,
                date: new Date(start).toISOString(),
              }),
            );
          },
        });
        // Not aborted here: an aborted query rejects, so the poll fails and the state stays as it was.
        return { messages, state: next ?? state, unusable: rejected };
      },
    );
  }

  RED.nodes.registerType('smsgw-dlr', SmsgwDlr);
};
