/**
 * smsgw-hlr-results: new HLR results (QueryNewHLRJobs), one msg each: msg.payload = the dbHLRJob record,
 * msg.topic = the number. Polls on an interval, or on each input. After an answer that may have been lost, the
 * results of the HLR jobs since shortly before the newest result are read again (polling/hlr-queue.ts).
 */
import type { Node, NodeAPI, NodeDef, NodeMessage } from 'node-red';
import { attachConfig, requireConfig } from './config/config';
import { setupPolling, type PollDef } from './polling/poll-node';
import { claimQueue } from './polling/one-reader';
import { toInt } from './common/props';
import { readCollected, recoverySettings, type CollectedState } from './polling/collected';
import { hlrQueue, MAX_RECOVERY_JOBS } from './polling/hlr-queue';
import { recoveryReporter } from './polling/recovery-log';

const HLR_OPERATIONS = { collect: 'QueryNewHLRJobs', recover: 'QueryJobs + QueryHLRJobsByJobID' };
import { unusable, type Unusable } from './polling/odd-records';

interface HlrResultsDef extends NodeDef, PollDef {
  gateway: string;
  /** Records per poll (0 = all). */
  limit?: number | string;
}

export default (RED: NodeAPI): void => {
  function SmsgwHlrResults(this: Node, def: HlrResultsDef): void {
    RED.nodes.createNode(this, def);
    start(this, def);
  }

  function start(node: Node, def: HlrResultsDef): void {
    const config = attachConfig(RED, node, def.gateway);
    claimQueue(RED, node, def.gateway, 'hlr');
    const limit = toInt(def.limit, 'limit') ?? 0;

    const recovery = recoverySettings(RED.settings);
    const noteRecovery = recoveryReporter(RED, node);
    let warnedMany = false;

    setupPolling<CollectedState>(
      RED,
      node,
      def,
      { seen: [] },
      async ({ signal, state, onWarning }) => {
        const client = requireConfig(config).getClient();
        const queue = hlrQueue(client, {
          limit,
          signal,
          onWarning,
          onTooMany: (found) => {
            if (warnedMany) return;
            warnedMany = true;
            node.warn(RED._('smsgw-hlr-results.errors.recoveryJobs', { found, max: MAX_RECOVERY_JOBS }));
          },
        });
        const read = await readCollected(queue, state, { ...recovery, now: Date.now });
        noteRecovery(read, HLR_OPERATIONS);
        const messages: NodeMessage[] = [];
        const rejected: Unusable[] = [];
        for (const r of read.records) {
          // An Id kept as raw text cannot be told apart: remembered by content, and to the error path once.
          const msg = { payload: r, topic: r.Number, jobId: r.JobId } as NodeMessage;
          if (Number.isInteger(r.Id)) messages.push(msg);
          else rejected.push(unusable('information', 'QueryNewHLRJobs', 'Id', r.Id, msg));
        }
        return {
          messages,
          state: read.state,
          unusable: rejected,
          recovered: read.recovered,
          failure: read.failure,
        };
      },
      { destructive: true },
    );
  }

  RED.nodes.registerType('smsgw-hlr-results', SmsgwHlrResults);
};
