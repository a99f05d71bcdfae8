/**
 * smsgw-hlr-results: new HLR results (QueryNewHLRJobs), one msg each: msg.payload = the dbHLRJob record,
 * msg.topic = the number. Polls on an interval, or on each input.
 */
import type { Node, NodeAPI, NodeDef, NodeMessage } from 'node-red';
import { attachConfig, requireConfig } from './config/config';
import { setupPolling, type PollDef } from './polling/poll-node';
import { toInt } from './common/props';
import { SeenIds } from './polling/state-file';

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
    const limit = toInt(def.limit, 'limit') ?? 0;

    setupPolling<{ seen: string[] }>(
      RED,
      node,
      def,
      { seen: [] },
      async ({ signal, state }) => {
        const client = requireConfig(config).getClient();
        const results = await client.information.queryNewHlrJobs({ Limit: limit }, { signal });
        const seen = new SeenIds(state.seen);
        const messages: NodeMessage[] = [];
        for (const r of results) {
          const key = String(r.Id);
          if (seen.has(key)) continue;
          seen.add(key);
          messages.push({ payload: r, topic: r.Number, jobId: r.JobId } as NodeMessage);
        }
        return { messages, state: { seen: seen.toJSON() } };
      },
      { destructive: true },
    );
  }

  RED.nodes.registerType('smsgw-hlr-results', SmsgwHlrResults);
};
