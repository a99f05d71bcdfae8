/**
 * INTERIM (until the config node owns the one inbound reader, issue 20 §1): reads new inbound messages for the
 * ask hub itself. Not durable and not shared with inbound triggers; replaced by the config node's reader.
 */
import type { SmsgwConfigNode } from '../config/config-node';
import { inboundKey } from '../smsgw-inbound';
import { replyOf, type ReplySource } from './replies';

export function interimReplies(config: SmsgwConfigNode): ReplySource {
  return (listener) => {
    let running: Promise<void> | undefined;
    const controller = new AbortController();
    return {
      pollNow: () => {
        running ??= (async () => {
          const client = config.getClient();
          const records = (config.service === 'legacy'
            ? (await client.legacy.getNewRecivedSms2({}, { signal: controller.signal })).records
            : await client.information.queryReceivedNewSms(
                {},
                { signal: controller.signal },
              )) as unknown as Record<string, unknown>[];
          if (records.length > 0)
            await listener.take(
              records.map((r) => replyOf(r, inboundKey(r))),
              controller.signal,
            );
        })().finally(() => {
          running = undefined;
        });
        return running;
      },
      close: () => {
        controller.abort();
        return Promise.resolve();
      },
    };
  };
}
