/**
 * Node-RED's user directory, where this package keeps what must survive a restart (outbox journal, readers' and
 * trackers' state, open questions, budget counts). Node-RED always sets one; an embedding may not.
 */
import type { NodeAPI } from 'node-red';

export function userDirOf(RED: NodeAPI): string | undefined {
  const dir = (RED.settings as unknown as Record<string, unknown>).userDir;
  return typeof dir === 'string' && dir !== '' ? dir : undefined;
}
