/**
 * The replies an ask hub waits for come from the config node's one reader of new inbound messages
 * (polling/queue-reader.ts): the hub is a first taker of it, so it gets each message before the inbound SMS
 * triggers, and what it marks on a reply that answered a question (`{ claimedBy: 'smsgw-ask', question: 'a', ... }`,
 * replies.ts) goes with the message to them: they skip it unless "also replies to questions" is ticked. The hub
 * asks the reader to read (pollNow) while questions are open; whatever a trigger's interval reads reaches it too.
 */
import type { SmsgwConfigNode } from '../config/config-node';
import { INBOUND } from '../polling/queue-kinds';
import { ownsReaders } from '../polling/reader-host';
import { replyOf, type ReplySource } from './replies';

/** The config node's reader as a source of replies; undefined when this config node has none. */
export function readerReplies(config: SmsgwConfigNode): ReplySource | undefined {
  if (!ownsReaders(config)) return undefined;
  return (listener) => {
    const handle = config.queueReader(INBOUND).listen({
      id: listener.id,
      first: true,
      // No interval of its own: the hub asks for a read while questions are open (pollNow).
      take: (records, signal) =>
        listener.take(
          records.map((r) => replyOf(r as unknown as Record<string, unknown>, INBOUND.key(r))),
          signal,
        ),
    });
    return { pollNow: () => handle.pollNow(), close: (removed) => handle.close(removed) };
  };
}
