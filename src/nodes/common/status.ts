import type { Node, NodeAPI, NodeStatus } from 'node-red';
import { safeText } from '../../text/untrusted';

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

/** A marker no translation contains: where a template's one parameter goes. */
const MARK = '\u0000';
/** Per RED (one per loaded node file, made once its catalogues are registered): key → template or text. */
const templates = new WeakMap<NodeAPI, Map<string, readonly [string, string] | string>>();

/**
 * RED._(key, { [param]: value }) for a text with one parameter that differs for every message (a JobId):
 * translated once with a marker in place of the value, then filled in (Node-RED does not escape values).
 * A translation without the marker (or a key that is not found) does not depend on the value: kept as it is.
 * One that holds the marker more than once is asked for every time.
 */
export function filledText(RED: NodeAPI, key: string, param: string, value: string): string {
  let cache = templates.get(RED);
  if (cache === undefined) {
    cache = new Map();
    templates.set(RED, cache);
  }
  const id = `${key}|${param}`;
  let template = cache.get(id);
  if (template === undefined) {
    const parts = RED._(key, { [param]: MARK }).split(MARK);
    if (parts.length > 2) return RED._(key, { [param]: value });
    template = parts.length === 2 ? [parts[0]!, parts[1]!] : parts[0]!;
    cache.set(id, template);
  }
  return typeof template === 'string' ? template : template[0] + value + template[1];
}

/** "3 in flight" by count, per RED (asked twice per msg). */
const inFlightTexts = new WeakMap<NodeAPI, string[]>();

export function inFlight(RED: NodeAPI, count: number): NodeStatus {
  let texts = inFlightTexts.get(RED);
  if (texts === undefined) {
    texts = [];
    inFlightTexts.set(RED, texts);
  }
  const text =
    count < 1000
      ? (texts[count] ??= RED._(sharedKey('status.inflight'), { count }))
      : RED._(sharedKey('status.inflight'), { count });
  return { fill: 'blue', shape: 'dot', text };
}

/*
 * A status text may hold what the gateway or a phone sent (a status word, a JobId of the older service, an HLR
 * result): one short line, its control characters shown as escapes (text/untrusted.ts).
 */
export const ok = (text: string): NodeStatus => ({ fill: 'green', shape: 'dot', text: safeText(text) });
export const warn = (text: string): NodeStatus => ({ fill: 'yellow', shape: 'dot', text: safeText(text) });
export const failed = (text: string): NodeStatus => ({ fill: 'red', shape: 'ring', text: safeText(text) });
export const idle = (text: string): NodeStatus => ({ fill: 'grey', shape: 'ring', text: safeText(text) });

export function clear(node: Node): void {
  node.status({});
}

/** "JobId 123", or the queued variant when the service accepted the job without credits. */
export function jobStatus(RED: NodeAPI, jobId: unknown, queued: boolean): NodeStatus {
  const id = String(jobId ?? '');
  return queued
    ? warn(filledText(RED, sharedKey('status.queued'), 'jobId', id))
    : ok(filledText(RED, sharedKey('status.job'), 'jobId', id));
}

/** What the status shows of a tracked job's delivery outcome (send/tracking.ts). */
export interface DeliveryCounts {
  JobId: number | string;
  outcome: 'final' | 'timeout';
  delivered: number;
  failed: number;
  unknown: number;
  missing: number;
}

/**
 * A tracked job's outcome on its send node: green once every recipient has a delivered report, a red ring
 * naming how many were not delivered, a yellow ring when the final reports did not all come in time.
 */
export function deliveryStatus(RED: NodeAPI, o: DeliveryCounts): NodeStatus {
  const jobId = String(o.JobId);
  if (o.outcome === 'timeout')
    return {
      fill: 'yellow',
      shape: 'ring',
      text: safeText(RED._(sharedKey('status.deliveryTimeout'), { jobId })),
    };
  const count = o.delivered + o.failed + o.unknown + o.missing;
  const notDelivered = count - o.delivered;
  return notDelivered === 0
    ? ok(RED._(sharedKey('status.delivered'), { jobId }))
    : failed(RED._(sharedKey('status.deliveryFailed'), { jobId, failed: notDelivered, count }));
}
