/**
 * smsgw-inbound: new received messages (QueryReceivedNewSMS, or GetNewRecivedSMS2 on the older service),
 * one msg each: msg.payload = text, msg.topic = msg.from = msg.recipient = sender (so a send node wired
 * behind it replies), msg.sms = the whole record. Polls on an interval, or on each input.
 */
import type { Node, NodeAPI, NodeDef, NodeMessage } from 'node-red';
import { attachConfig, requireConfig } from './config/config';
import { setupPolling, type PollDef } from './polling/poll-node';
import { SeenIds } from './polling/state-file';

interface InboundDef extends NodeDef, PollDef {
  gateway: string;
  /** Also emit status reports (records the service flags as such); default: messages only. */
  includeReports?: boolean;
}

interface InboundState {
  seen: string[];
}

type Rec = Record<string, unknown>;

const pick = (r: Rec, ...names: string[]): unknown => names.map((n) => r[n]).find((v) => v !== undefined);

/** A stable identity: the record Id where the service gives one, else its content (older service). */
export function inboundKey(r: Rec): string {
  const id = r.Id ?? r.ID;
  if (id !== undefined && id !== null && id !== '') return `id:${String(id)}`;
  return `c:${JSON.stringify(
    Object.keys(r)
      .sort()
      .map((k) => [k, r[k] instanceof Date ? (r[k] as Date).toISOString() : r[k]]),
  )}`;
}

function isReport(r: Rec): boolean {
  const v = pick(r, 'Report', 'isStatusReport', 'IsStatusReport', 'statusReport');
  return v === 1 || v === true || v === '1' || v === 'true';
}

export default (RED: NodeAPI): void => {
  function SmsgwInbound(this: Node, def: InboundDef): void {
    RED.nodes.createNode(this, def);
    start(this, def);
  }

  function start(node: Node, def: InboundDef): void {
    const config = attachConfig(RED, node, def.gateway);

    setupPolling<InboundState>(
      RED,
      node,
      def,
      { seen: [] },
      async ({ signal, state }) => {
        const cfg = requireConfig(config);
        const client = cfg.getClient();
        const records: Rec[] =
          cfg.service === 'legacy'
            ? ((await client.legacy.getNewRecivedSms2({}, { signal })).records as Rec[])
            : ((await client.information.queryReceivedNewSms({}, { signal })) as unknown as Rec[]);
        const seen = new SeenIds(state.seen);
        const messages: NodeMessage[] = [];
        for (const r of records) {
          const key = inboundKey(r);
          if (seen.has(key)) continue;
          seen.add(key);
          if (isReport(r) && !def.includeReports) continue;
          const sender = String(pick(r, 'Sender', 'sender') ?? '');
          messages.push({
            payload: String(pick(r, 'Text', 'message', 'Message', 'text') ?? ''),
            topic: sender,
            from: sender,
            recipient: sender,
            sms: r,
          } as NodeMessage);
        }
        return { messages, state: { seen: seen.toJSON() } };
      },
      { destructive: true },
    );
  }

  RED.nodes.registerType('smsgw-inbound', SmsgwInbound);
};
