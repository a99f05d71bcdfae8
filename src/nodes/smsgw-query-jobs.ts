/**
 * smsgw-query-jobs: QueryJobs, QueryJobInfoByJobCaption, QueryHLRJobsByJobID, QueryReceivedDLRByJobID,
 * QueryReceivedDLR, QueryReceivedSMSByJobCaption and the older GetJobs1, GetGetJobsWithStatusResult,
 * GetRecivedSMS2, RecivedSMS2. In: one typedInput per parameter; msg.params.<Name> and msg.operation
 * override. Out: msg.payload (or the node's Output property) = the result (a list, SMSJobInfo, or the older
 * service's records).
 */
import type { Node, NodeAPI } from 'node-red';
import { setupMultiOperation, type MultiOpDef } from './common/multi-op';
import { queryPayload, queryStatus } from './common/present';

export default (RED: NodeAPI): void => {
  function SmsgwQueryJobs(this: Node, def: MultiOpDef): void {
    RED.nodes.createNode(this, def);
    setupMultiOperation(RED, this, 'smsgw-query-jobs', def, (op, value) => {
      const payload = queryPayload(value);
      return { payload, status: queryStatus(op.name, payload) };
    });
  }

  RED.nodes.registerType('smsgw-query-jobs', SmsgwQueryJobs);
};
