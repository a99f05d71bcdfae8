/**
 * Gives a config node its readers of the queues the gateway empties (queue-reader.ts), one per queue, built when
 * the first listener registers and closed with the config node (a read in flight gets its grace first).
 */
import type { NodeAPI } from 'node-red';
import type { SmsgwConfigNode } from '../config/config-node';
import { recoverySettings } from './collected';
import type { QueueKind } from './queue-kinds';
import { QueueReader, type ReaderInfo } from './queue-reader';
import { userDirOf } from '../common/user-dir';
import { noteInbound } from '../admin/panel/inbound';
import { INBOUND } from './queue-kinds';
import type { InboundRecord } from './inbound-queue';

/** A config node that owns readers (see attachQueueReaders). */
export interface ReaderOwner {
  queueReader<R>(kind: QueueKind<R>): QueueReader<R>;
  /** The readers built so far, as the panel shows them (none is built by asking). */
  readerInfo(): ReaderInfo[];
  /** Closes the readers (the config node's close handler calls it first). */
  closeReaders(): Promise<void>;
}

export function ownsReaders(config: unknown): config is ReaderOwner {
  return typeof (config as Partial<ReaderOwner> | null)?.queueReader === 'function';
}

/**
 * `gone(type)`: ids of listeners of that queue that will not register again (a first taker the configuration's
 * settings switched off): forgotten when the reader is built, so the others are not held back waiting for them.
 */
export function attachQueueReaders(
  RED: NodeAPI,
  node: SmsgwConfigNode,
  gone: (type: string) => readonly string[] = () => [],
): void {
  const readers = new Map<string, QueueReader<unknown>>();
  const owner = node as SmsgwConfigNode & ReaderOwner;
  owner.queueReader = <R>(kind: QueueKind<R>): QueueReader<R> => {
    let reader = readers.get(kind.type) as QueueReader<R> | undefined;
    if (!reader) {
      reader = new QueueReader<R>(
        {
          RED,
          node,
          service: node.service === 'legacy' ? 'legacy' : 'gateway',
          client: () => node.getClient(),
          accountError: () => node.accountError,
          userDir: userDirOf(RED),
          recovery: recoverySettings(RED.settings),
          reliability: node.reliability,
          coordination: node.coordination,
          // The panel's last inbound messages (in memory only).
          onTaken: (type, records, marks, first) => {
            if (type === INBOUND.type) noteInbound(node, records as InboundRecord[], marks, first);
          },
        },
        kind,
      );
      readers.set(kind.type, reader as QueueReader<unknown>);
      for (const id of gone(kind.type)) void reader.forget(id);
    }
    return reader;
  };
  owner.readerInfo = (): ReaderInfo[] => [...readers.values()].map((r) => r.info());
  owner.closeReaders = async (): Promise<void> => {
    const all = [...readers.values()];
    readers.clear();
    await Promise.all(all.map((r) => r.close().catch(() => undefined)));
  };
}
