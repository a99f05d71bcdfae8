import type { Node, NodeAPI, NodeMessage, NodeMessageInFlow } from 'node-red';
import { GatewayError } from '../../errors';
import type { DeliveryOutcome } from './delivery-tracker';
import { hasTracker } from './delivery-host';
import type { SendOutcome } from './results';
import { deliveryStatus, sharedKey } from '../common/status';
import type { InputStatus } from '../common/input';
import type { SmsgwConfigNode } from '../config/config-node';
import type { NodeOutput } from '../common/output';

/** The editor's "track delivery" fields of a send node. */
export interface TrackingDef {
  id: string;
  track?: boolean | string;
  /** Minutes to wait for the final reports (decimals allowed); default one day. */
  trackTimeout?: number | string;
}

export const DEFAULT_TRACK_TIMEOUT_MIN = 1440;

export interface Tracking {
  /** The node's *Wait for reports*, in ms. */
  readonly timeoutMs: number;
  /**
   * Call before the send: reports read while it is under way are kept for its job (found by its reference
   * after a lost answer, it is tracked late). Call the returned function once track() was called or the send
   * failed.
   */
  expect(): () => void;
  /** Tracks the job the msg created; `timeoutMs` (msg.trackTimeout) replaces the node's wait for this job. */
  track(
    msg: NodeMessageInFlow,
    outcome: SendOutcome,
    recipients: readonly string[],
    timeoutMs?: number,
  ): void;
}

/**
 * How long one msg's job is tracked (ms), or undefined when it is not: the node's setting unless the msg says
 * otherwise (msg.track, msg.trackTimeout in minutes). A node without *Track delivery* has no outputs for the
 * outcomes, so a msg asking it to track is refused before anything is sent instead of losing them.
 */
export function trackingOf(
  tracking: Tracking | undefined,
  track: boolean | undefined,
  timeoutMinutes: number | undefined,
): number | undefined {
  if (track === false) return undefined;
  if (tracking === undefined) {
    if (track === undefined && timeoutMinutes === undefined) return undefined;
    throw new GatewayError(
      'VALIDATION',
      `${track === undefined ? 'msg.trackTimeout' : 'msg.track'}: this node does not track delivery (no outputs 2 and 3): tick Track delivery in its dialog`,
      { ambiguous: false },
    );
  }
  return timeoutMinutes === undefined ? tracking.timeoutMs : timeoutMinutes * 60_000;
}

/**
 * A send node with tracking on: subscribes to its config node's tracker (outcomes that finished while the node
 * was away arrive now) and sends each outcome to output 2 (final) or 3 (timeout), at the node's Output
 * property of a copy of the msg that was sent, and shows it in the node's status (delivered, how many were not,
 * or not in time). Undefined when tracking is off.
 */
export function setupTracking(
  RED: NodeAPI,
  node: Node,
  config: SmsgwConfigNode | undefined,
  def: TrackingDef,
  output: NodeOutput,
  status: InputStatus,
): Tracking | undefined {
  if (def.track !== true && def.track !== 'true') return undefined;
  if (!hasTracker(config)) return undefined;
  const minutes = Number(def.trackTimeout ?? DEFAULT_TRACK_TIMEOUT_MIN);
  const timeoutMs = (Number.isFinite(minutes) && minutes > 0 ? minutes : DEFAULT_TRACK_TIMEOUT_MIN) * 60_000;
  const tracker = config.getDeliveryTracker();

  const unsubscribe = tracker.subscribe(node.id, (o: DeliveryOutcome) => {
    const { context, ...payload } = o;
    const base = (context ?? {}) as Record<string, unknown>;
    const msg = { ...base, topic: String(o.JobId), jobId: o.JobId } as NodeMessage;
    output.write(msg, payload);
    status.result(deliveryStatus(RED, o));
    node.send(o.outcome === 'final' ? [null, msg, null] : [null, null, msg]);
  });

  node.on('close', (removed: boolean, done: () => void) => {
    unsubscribe();
    // A deleted node's jobs are dropped; a redeployed or restarted one gets them when it subscribes again.
    void (removed ? tracker.forget(node.id) : Promise.resolve()).finally(() => done());
  });

  return {
    timeoutMs,
    expect: () => tracker.expect(),
    track(msg, outcome, recipients, jobTimeoutMs = timeoutMs): void {
      const jobs = outcome.results ?? [{ JobId: outcome.JobId }];
      if (jobs.length !== 1 || outcome.JobId === undefined || outcome.JobId === '' || outcome.JobId === 0) {
        // SendMobileOrFixlineSMS split the recipients over several jobs in a way the answer does not show.
        if (jobs.length > 1) node.warn(RED._(sharedKey('errors.trackSplit'), { count: jobs.length }));
        return;
      }
      const context = trackingContext(RED, msg, output);
      tracker.track({ jobId: outcome.JobId, owner: node.id, recipients, timeoutMs: jobTimeoutMs, context });
    },
  };
}

/**
 * What a delivery outcome's msg is built from: a deep copy of the sent msg (RED.util.cloneMessage: the flow may
 * change the original once it has moved on; an http-in msg's req/res stay shared). Without its payload when the
 * outcome goes there anyway; an Output elsewhere keeps the payload as it came.
 */
export function trackingContext(
  RED: NodeAPI,
  msg: NodeMessageInFlow,
  output: NodeOutput,
): Record<string, unknown> {
  const context = RED.util.cloneMessage(msg) as Record<string, unknown>;
  if (output.property === 'payload') delete context.payload;
  return context;
}
