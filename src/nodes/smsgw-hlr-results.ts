/**
 * smsgw-hlr-results: new HLR results (QueryNewHLRJobs), one msg each: msg.payload = the dbHLRJob record,
 * msg.topic = the number. Polls on an interval, or on each input.
 */
import type { Node, NodeAPI, NodeDef, NodeMessage } from 'node-red';
import { attachConfig, requireConfig } from './config/config';
import { setupPolling, type PollDef } from './polling/poll-node';
import { claimQueue } from './polling/one-reader';
import { toInt } from './common/props';
import { SeenIds } from './polling/state-file';
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

    setupPolling<{ seen: string[] }>(
      RED,
      node,
      def,
      { seen: [] },
      async ({ signal, state, onWarning }) => {
        const client = requireConfig(config).getClient();
        const results = await client.information.queryNewHlrJobs({ Limit: limit }, { signal, onWarning });
        const seen = new SeenIds(state.seen);
        const messages: NodeMessage[] = [];
        const rejected: Unusable[] = [];
        for (const r of results) {
          // An Id kept as raw text cannot be told apart: remembered by content, and to the error path once.
          const usable = Number.isInteger(r.Id);
          const key = usable ? String(r.Id) : `odd:${JSON.stringify(r)}`;
          if (seen.has(key)) continue;
          seen.add(key);
          const msg = { payload: r, topic: r.Number, jobId: r.JobId } as NodeMessage;
          if (usable) messages.push(msg);
          else rejected.push(unusable('information', 'QueryNewHLRJobs', 'Id', r.Id, msg));
        }
        return { messages, state: { seen: seen.toJSON() }, unusable: rejected };
      },
      { destructive: true },
    );
  }

  RED.nodes.registerType('smsgw-hlr-results', SmsgwHlrResults);
};
