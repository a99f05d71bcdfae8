/**
 * smsgw-legacy-send-text: the send operations of the older string service (/soap/send.asmx): SendText,
 * SendText2, SendSMS, SendSMS2, SendSimpleSMS, SMSCR, SendBinURL, SendBinData, SendBinData2.
 * In: one typedInput per parameter (text from msg.payload, caption from msg.topic unless set);
 * msg.params.<Name> and msg.operation override. Out: msg.payload (or the node's Output property) =
 * { operation, JobId, raw, queued }.
 */
import type { Node, NodeAPI } from 'node-red';
import { setupMultiOperation, type MultiOpDef } from './common/multi-op';
import { sendOutcome } from './send/results';
import { jobStatus } from './common/status';

export default (RED: NodeAPI): void => {
  function SmsgwLegacySendText(this: Node, def: MultiOpDef): void {
    RED.nodes.createNode(this, def);
    setupMultiOperation(RED, this, 'smsgw-legacy-send-text', def, (op, value) => {
      const outcome = sendOutcome(value);
      return {
        payload: { operation: op.name, ...outcome },
        status: jobStatus(RED, outcome.JobId, outcome.queued),
      };
    });
  }

  RED.nodes.registerType('smsgw-legacy-send-text', SmsgwLegacySendText);
};
