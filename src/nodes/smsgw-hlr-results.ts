/**
 * smsgw-hlr-results: new HLR results (QueryNewHLRJobs), one msg each: msg.payload = the dbHLRJob record,
 * msg.topic = the number. A listener of its config node's one reader of new HLR results (polling/queue-reader.ts):
 * two triggers on one gateway both get every result. After an answer that may have been lost, the results of the
 * HLR jobs since shortly before the newest result are read again (polling/hlr-queue.ts).
 */
import type { Node, NodeAPI, NodeDef, NodeMessage } from 'node-red';
import type { dbHLRJob } from '../client/types.generated';
import { attachConfig } from './config/config';
import type { PollDef } from './polling/poll-node';
import { deployFields } from './common/fields';
import { listenTo } from './polling/listen';
import { unusable } from './polling/odd-records';
import { HLR_RESULTS } from './polling/queue-kinds';

interface HlrResultsDef extends NodeDef, PollDef {
  gateway: string;
  /** Records per poll (0 = all). */
  limit?: number | string;
}

export default (RED: NodeAPI): void => {
  function SmsgwHlrResults(this: Node, def: HlrResultsDef): void {
    RED.nodes.createNode(this, def);
    // Every setting judged by its rule (src/nodes/fields/triggers.ts); a refused one: the node only says why.
    const values = deployFields(RED, this, 'smsgw-hlr-results', def);
    if (values) start(this, { ...def, interval: values.interval as number }, values.limit as number);
  }

  function start(node: Node, def: HlrResultsDef, limit: number): void {
    const config = attachConfig(RED, node, def.gateway);

    // A listener of the config node's one reader of new HLR results: every HLR results trigger gets every result.
    listenTo<dbHLRJob>(RED, node, def, config, HLR_RESULTS, {
      limit,
      toMessage: (r) => {
        const msg = { payload: r, topic: r.Number, jobId: r.JobId } as NodeMessage;
        // An Id kept as raw text cannot be told apart: remembered by content, and to the error path once.
        return Number.isInteger(r.Id)
          ? { msg }
          : { unusable: unusable('information', 'QueryNewHLRJobs', 'Id', r.Id, msg) };
      },
    });
  }

  RED.nodes.registerType('smsgw-hlr-results', SmsgwHlrResults);
};
