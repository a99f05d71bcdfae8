/**
 * smsgw-inbound: new received messages (QueryReceivedNewSMS, or GetNewRecivedSMS2 on the older service),
 * one msg each: msg.payload = text, msg.topic = msg.from = msg.recipient = sender (so a send node wired
 * behind it replies), msg.report = the record's Report flag, msg.sms = the whole record. Polls on an interval,
 * or on each input. What Report means is not shown in the spec: every record is emitted unless the user opts in
 * to dropping those flagged 1 (presumed status reports).
 */
import type { Node, NodeAPI, NodeDef, NodeMessage } from 'node-red';
import { attachConfig, requireConfig } from './config/config';
import { setupPolling, type PollDef } from './polling/poll-node';
import { claimQueue } from './polling/one-reader';
import { inboundKey, inboundOperations, inboundQueue, type InboundRecord } from './polling/inbound-queue';
import { readCollected, recoverySettings, type CollectedState } from './polling/collected';
import { recoveryReporter } from './polling/recovery-log';

interface InboundDef extends NodeDef, PollDef {
  gateway: string;
  /** Drop records whose Report flag is set (presumed status reports); default: emit every record. */
  dropReports?: boolean | string;
  /** Before dropReports: `false` (the old default, saved in deployed flows) dropped flagged records. */
  includeReports?: boolean | string;
}

type InboundState = CollectedState;

type Rec = InboundRecord;

const pick = (r: Rec, ...names: string[]): unknown => names.map((n) => r[n]).find((v) => v !== undefined);

export { inboundKey };

/**
 * The record's Report flag for msg.report: the typed service's `Report` as sent, the older service's flag as
 * 1 / 0; undefined when the record has none. A value of another kind is passed on as it came.
 */
export function reportOf(r: Rec): unknown {
  const v = pick(r, 'Report', 'isStatusReport', 'IsStatusReport', 'statusReport');
  return typeof v === 'boolean' ? (v ? 1 : 0) : v;
}

const flagged = (v: unknown): boolean => v === 1 || v === '1' || v === true || v === 'true';
const isTrue = (v: unknown): boolean => v === true || v === 'true';

/**
 * Whether the node drops flagged records: only when the user ticked it, or (carriedOver) when a node saved by an
 * earlier version kept its old default `includeReports: false` and has not been edited since.
 */
export function reportDropping(def: InboundDef): { drop: boolean; carriedOver: boolean } {
  if (def.dropReports !== undefined && def.dropReports !== '')
    return { drop: isTrue(def.dropReports), carriedOver: false };
  const carriedOver = def.includeReports === false || def.includeReports === 'false';
  return { drop: carriedOver, carriedOver };
}

export default (RED: NodeAPI): void => {
  function SmsgwInbound(this: Node, def: InboundDef): void {
    RED.nodes.createNode(this, def);
    start(this, def);
  }

  function start(node: Node, def: InboundDef): void {
    const config = attachConfig(RED, node, def.gateway);
    claimQueue(RED, node, def.gateway, 'inbound');
    const dropping = reportDropping(def);
    let warnedDrop = false;

    const recovery = recoverySettings(RED.settings);
    const noteRecovery = recoveryReporter(RED, node);

    setupPolling<InboundState>(
      RED,
      node,
      def,
      { seen: [] },
      async ({ signal, state, onWarning }) => {
        const cfg = requireConfig(config);
        const service = cfg.service === 'legacy' ? 'legacy' : 'gateway';
        const queue = inboundQueue(cfg.getClient(), {
          service,
          caption: recovery.caption,
          signal,
          onWarning,
        });
        const read = await readCollected(queue, state, { ...recovery, now: Date.now });
        noteRecovery(read, inboundOperations(service));
        const messages: NodeMessage[] = [];
        for (const r of read.records) {
          const report = reportOf(r);
          if (dropping.drop && flagged(report)) {
            if (dropping.carriedOver && !warnedDrop) {
              warnedDrop = true;
              node.warn(RED._('smsgw-inbound.errors.droppedCarriedOver'));
            }
            continue;
          }
          const sender = String(pick(r, 'Sender', 'sender') ?? '');
          messages.push({
            // A record of the older service kept as { raw } (its fields unreadable) passes its text on.
            payload: String(pick(r, 'Text', 'message', 'Message', 'text', 'raw') ?? ''),
            topic: sender,
            from: sender,
            recipient: sender,
            report,
            sms: r,
          } as NodeMessage);
        }
        return { messages, state: read.state, recovered: read.recovered, failure: read.failure };
      },
      { destructive: true },
    );
  }

  RED.nodes.registerType('smsgw-inbound', SmsgwInbound);
};
