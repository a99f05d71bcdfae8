/**
 * The replies an ask hub waits for come from the config node's one reader of new inbound messages
 * (polling/queue-reader.ts): the hub is one listener of it, as the inbound SMS triggers are, so a trigger and the
 * asks on one gateway each get every message, once. The hub asks the reader to read (pollNow) while questions are
 * open; whatever a trigger's interval reads reaches it too.
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
