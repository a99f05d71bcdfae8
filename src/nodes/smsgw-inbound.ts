/**
 * smsgw-inbound: new received messages (QueryReceivedNewSMS, or GetNewRecivedSMS2 on the older service),
 * one msg each: msg.payload = text, msg.topic = msg.from = msg.recipient = sender (so a send node wired
 * behind it replies), msg.report = the record's Report flag, msg.sms = the whole record. A listener of its config
 * node's one reader of new messages (polling/queue-reader.ts): two triggers on one gateway both get every message.
 * The reader polls on the shortest interval of its listeners, or when one gets an input. What Report means is not
 * shown in the spec: every record is emitted unless the user opts in to dropping those flagged 1 (presumed status
 * reports). A reply that answered an ask node's question (the ask hub, a first taker of the reader, marked it) is
 * left out unless "also replies to questions" is ticked; then msg.ask names the question.
 */
import type { Node, NodeAPI, NodeDef, NodeMessage } from 'node-red';
import { attachConfig } from './config/config';
import type { PollDef } from './polling/poll-node';
import { inboundKey, type InboundRecord } from './polling/inbound-queue';
import { listenTo } from './polling/listen';
import { INBOUND } from './polling/queue-kinds';
import { deployFields } from './common/fields';
import type { RecordMarks } from './polling/queue-reader';
import { CLAIMED_BY_ASK } from './ask/replies';

interface InboundDef extends NodeDef, PollDef {
  gateway: string;
  /** Drop records whose Report flag is set (presumed status reports); default: emit every record. */
  dropReports?: boolean | string;
  /** Before dropReports: `false` (the old default, saved in deployed flows) dropped flagged records. */
  includeReports?: boolean | string;
  /** Emit also the replies an ask node took; default: leave them out. */
  alsoReplies?: boolean | string;
}

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

/**
 * The question a reply answered, as an ask node marked it (msg.ask of the emitted msg): its code and ask id, the
 * ask node, and what the reply did (`ack`, `pass`, `late`, `which`); undefined when no ask node took it.
 */
export function askClaim(
  marks: RecordMarks | undefined,
): { code: string; id: string; node: string; action: string } | undefined {
  if (marks?.claimedBy !== CLAIMED_BY_ASK) return undefined;
  const text = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');
  return {
    code: text(marks.question),
    id: text(marks.askId),
    node: text(marks.askNode),
    action: text(marks.action),
  };
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
    // Every setting judged by its rule (src/nodes/fields/triggers.ts); a refused one: the node only says why.
    const values = deployFields(RED, this, 'smsgw-inbound', def);
    if (values)
      start(this, { ...def, interval: values.interval as number, alsoReplies: values.alsoReplies === true });
  }

  function start(node: Node, def: InboundDef): void {
    const config = attachConfig(RED, node, def.gateway);
    const dropping = reportDropping(def);
    let warnedDrop = false;
    const alsoReplies = def.alsoReplies === true;

    // A listener of the config node's one reader of new messages: every inbound trigger gets every message.
    listenTo<InboundRecord>(RED, node, def, config, INBOUND, {
      toMessage: (r, marks) => {
        const claim = askClaim(marks);
        // A reply that answered a question belongs to the ask node that asked it.
        if (claim && !alsoReplies) return {};
        const report = reportOf(r);
        if (dropping.drop && flagged(report)) {
          if (dropping.carriedOver && !warnedDrop) {
            warnedDrop = true;
            node.warn(RED._('smsgw-inbound.errors.droppedCarriedOver'));
          }
          return {};
        }
        const sender = String(pick(r, 'Sender', 'sender') ?? '');
        return {
          msg: {
            // A record of the older service kept as { raw } (its fields unreadable) passes its text on.
            payload: String(pick(r, 'Text', 'message', 'Message', 'text', 'raw') ?? ''),
            topic: sender,
            from: sender,
            recipient: sender,
            report,
            sms: r,
            ...(claim ? { ask: claim } : {}),
            // The opt-out list took this reply as a keyword: "added" (STOP), "removed" (START), "help".
            ...(typeof marks?.optOut === 'string' ? { optOut: marks.optOut } : {}),
          } as NodeMessage,
        };
      },
    });
  }

  RED.nodes.registerType('smsgw-inbound', SmsgwInbound);
};
