import type { Node, NodeAPI, NodeStatus } from 'node-red';

/**
 * Texts shared by every node live in the config node's catalogue; a fully qualified key reaches them from
 * any node (the runtime's RED._ and the editor both honour "namespace:key").
 */
export const SHARED_NS = '@smsgw/node-red-sms-gateway/smsgw-config:smsgw-config.';

export const sharedKey = (key: string): string => SHARED_NS + key;

const translated = new Map<string, string>();

/**
 * RED._ for status texts that change with every message ("3 in flight"): a busy flow asked it twice per
 * message and spent a fifth of its time there (bench/nodered.ts), so the few distinct texts are kept.
 */
export function cachedText(RED: NodeAPI, key: string, params: Record<string, string | number>): string {
  const id = `${key}|${Object.values(params).join('|')}`;
  let text = translated.get(id);
  if (text === undefined) {
    if (translated.size >= 1000) translated.clear();
    text = RED._(key, params);
    translated.set(id, text);
  }
  return text;
}

export function inFlight(RED: NodeAPI, count: number): NodeStatus {
  return { fill: 'blue', shape: 'dot', text: cachedText(RED, sharedKey('status.inflight'), { count }) };
}

export const ok = (text: string): NodeStatus => ({ fill: 'green', shape: 'dot', text });
export const warn = (text: string): NodeStatus => ({ fill: 'yellow', shape: 'dot', text });
export const failed = (text: string): NodeStatus => ({ fill: 'red', shape: 'ring', text });
export const idle = (text: string): NodeStatus => ({ fill: 'grey', shape: 'ring', text });

export function clear(node: Node): void {
  node.status({});
}

/** "JobId 123", or the queued variant when the service accepted the job without credits. */
export function jobStatus(RED: NodeAPI, jobId: unknown, queued: boolean): NodeStatus {
  return queued
    ? warn(RED._(sharedKey('status.queued'), { jobId: String(jobId ?? '') }))
    : ok(RED._(sharedKey('status.job'), { jobId: String(jobId ?? '') }));
}
