import type { Node, NodeAPI, NodeMessage, NodeMessageInFlow, NodeStatus } from 'node-red';
import { GatewayError } from '../../errors';
import { EntryTakenOver } from '../../reliability/outbox-store';
import { configOf } from '../config/config';
import type { ReliabilityHost } from '../config/reliability-host';
import { NodeGatewayError, statusTextOf, toGatewayError } from './errors';
import type { NodeOutput } from './output';
import { cachedText, failed, inFlight, sharedKey, warn } from './status';
import { overrideTableOf } from './override-table';
import { readOverride } from './overrides';

/** The nodes whose sends the spending guard counts: they show its state near and at a limit. */
const SEND_TYPES = new Set(['smsgw-send-sms', 'smsgw-send-hlr', 'smsgw-send-udh', 'smsgw-legacy-send-text']);

/** Spare controllers kept per node: as many as messages are usually in flight. */
const SPARE_MAX = 64;

export interface InputResult {
  /** Written to the node's Output property (msg.payload by default); the rest of the incoming msg is kept. */
  payload: unknown;
  /** Status shown once no other request of this node is in flight. */
  status: NodeStatus;
  /** Messages for outputs 2..n (output 1 always receives the msg). */
  more?: (NodeMessage | null)[];
}

export interface InputContext {
  /** The node's id: where outcomes of its messages come back to after a restart. */
  readonly origin: string;
  /**
   * The durable outbox has the message: done() is called now (a Complete node fires), the msg is sent on when
   * the gateway settles it, and a refusal after this point reaches the Catch node through node.error().
   */
  accepted(): void;
  /** The message waits in the durable outbox for the gateway: the node shows it as kept until it is sent. */
  kept(): void;
  /** msg.priority = "critical": the spending guard lets it use its reserve (send/send-path.ts). */
  readonly priority: 'critical' | undefined;
  /** The config's quiet hours apply to this node's messages (send/gate.ts). */
  readonly quiet: boolean;
  /** msg.topic (text): stored with a message the quiet hours hold, which can be cancelled by it. */
  readonly topic: string | undefined;
  /** The message is held in the outbox until its time (quiet hours). */
  held(): void;
  /**
   * Some recipients were left out (the opt-out list refused them) and the others sent: the node outputs its
   * result, then reports `error` (done(err), or node.error once the outbox had acknowledged the msg) and shows it.
   */
  partly(error: GatewayError): void;
}

export interface InputOptions {
  /** The config's quiet hours hold this node's messages (the node's Quiet hours setting is not "off"). */
  quiet?: boolean;
}

/** What the rest of a node may tell the input path's status. */
export interface InputStatus {
  /** Shows `status` as the node's latest result (a delivery outcome), as a finished message's status is. */
  result(status: NodeStatus): void;
}

export type InputHandler = (
  msg: NodeMessageInFlow,
  signal: AbortSignal,
  ctx: InputContext,
) => Promise<InputResult>;

/**
 * The one input path of every action node: counts requests in flight (blue status, with the config's queue
 * depth), sends the msg with its result at the node's Output property then calls done(), or calls done(err)
 * only (a Catch node gets msg.error with code and cause). A msg the result could not be written to is refused
 * before the handler runs. A msg the durable outbox accepted was acknowledged (done()) at that moment: its
 * result is sent later, a refusal goes to node.error(err, msg), and a stop leaves it to the outbox (no error:
 * its outcome comes back after the restart). An AUTH failure of any node of the config shows a red ring on all
 * of them until a call succeeds. Requests still running when the node closes are aborted.
 */
export function onInput(
  RED: NodeAPI,
  node: Node,
  output: NodeOutput,
  handler: InputHandler,
  options: InputOptions = {},
): InputStatus {
  const running = new Set<AbortController>();
  const kept = new Set<AbortController>();
  /** Messages of this run held for the quiet hours (still running: their msg goes on once sent). */
  const held = new Set<AbortController>();
  const accepted = new Set<AbortController>();
  let lastStatus: NodeStatus = {};
  /** The last result was an AUTH failure: stale as soon as any call on the config succeeds again. */
  let lastWasAuth = false;
  let shown: NodeStatus | undefined;
  const host = configOf(node)?.reliability;
  const showsBudget = SEND_TYPES.has(node.type);
  // msg.priority, for the node types whose override table has it (the sending ones).
  const priority = overrideTableOf(node.type)?.priority;
  // msg.outbox = { cancel: true }, for the node types that send what quiet hours hold.
  const cancel = overrideTableOf(node.type)?.outbox;
  const quiet = options.quiet === true;

  const compose = (): NodeStatus => {
    const health = host?.health();
    if (health?.authFailed !== undefined)
      return failed(RED._(sharedKey('status.authFailed'), { status: health.authFailed }));
    if (health?.redisDown !== undefined)
      return failed(RED._(sharedKey('status.redisDown'), { message: health.redisDown.split('\n')[0] }));
    // A send node whose outbox cannot store messages: its sends are refused until it can.
    if (health?.outboxDown !== undefined && host?.sendsThroughOutbox(node.id))
      return failed(RED._(sharedKey('status.outboxDown'), { message: health.outboxDown }));
    if (lastWasAuth && host) {
      lastStatus = {};
      lastWasAuth = false;
    }
    // Held ones of this run are not in flight; those held before a restart have no msg running here.
    const heldHere = health && health.held > 0 ? host!.heldFor(node.id) : 0;
    const active = running.size - kept.size - Math.min(held.size, heldHere);
    if (active > 0) {
      const depth = health?.depth ?? 0;
      return depth > 0
        ? {
            fill: 'blue',
            shape: 'dot',
            text: cachedText(RED, sharedKey('status.inflightQueued'), { count: active, depth }),
          }
        : inFlight(RED, active);
    }
    if (kept.size > 0) return warn(RED._(sharedKey('status.kept'), { count: kept.size }));
    if (heldHere > 0)
      return { fill: 'grey', shape: 'ring', text: RED._(sharedKey('status.held'), { count: heldHere }) };
    // A spending limit near or reached says more than the last message's result.
    return (showsBudget ? health?.budget : undefined) ?? lastStatus;
  };
  const show = (): void => {
    const status = compose();
    // Unchanged statuses are not sent again (a busy node would flood the editor).
    if (
      shown !== undefined &&
      status.fill === shown.fill &&
      status.shape === shown.shape &&
      status.text === shown.text
    )
      return;
    shown = status;
    node.status(status);
  };
  const unsubscribe = host?.subscribe(node, show);

  /**
   * Controllers of messages that finished without being aborted, handed to the next ones: an AbortSignal costs
   * ~5% of a busy send node's time to make. Safe because every user of the signal (client, flow control,
   * outbox wait, HLR wait) removes its listener when its work ends, and a message's work ends before its
   * handler resolves.
   */
  const spare: AbortController[] = [];

  node.on('input', (msg: NodeMessageInFlow, send, done) => {
    const controller = spare.pop() ?? new AbortController();
    running.add(controller);
    show();
    let partial: GatewayError | undefined;
    const ctx: InputContext = {
      partly: (error) => {
        partial = error;
      },
      origin: node.id,
      priority: priority && (readOverride(msg, priority) as InputContext['priority']),
      accepted: () => {
        if (accepted.has(controller)) return;
        accepted.add(controller);
        done();
      },
      kept: () => {
        kept.add(controller);
        show();
      },
      quiet,
      topic: quiet && typeof msg.topic === 'string' ? msg.topic : undefined,
      held: () => {
        held.add(controller);
        show();
      },
    };
    let work: Promise<InputResult>;
    try {
      output.check(msg);
      work =
        cancel && readOverride(msg, cancel) === true
          ? cancelHeld(RED, host, msg.topic)
          : handler(msg, controller.signal, ctx);
    } catch (err) {
      work = Promise.reject(err);
    }
    work
      .then(
        (result) => {
          running.delete(controller);
          kept.delete(controller);
          held.delete(controller);
          const wasAccepted = accepted.delete(controller);
          if (!controller.signal.aborted && spare.length < SPARE_MAX) spare.push(controller);
          // Sent to some recipients only: the result's status says how many were left out, and why.
          lastStatus = partial ? partlyStatus(RED, result.status, partial) : result.status;
          lastWasAuth = false;
          host?.report(undefined);
          show();
          if (!output.write(msg, result.payload))
            node.warn(RED._(sharedKey('errors.output'), { output: output.property }));
          send(result.more ? [msg, ...result.more] : msg);
          // After the output (the flow gets what was sent), a Catch node hears who was not sent to.
          if (partial && wasAccepted) node.error(new NodeGatewayError(partial), msg);
          else if (partial) done(new NodeGatewayError(partial));
          else if (!wasAccepted) done();
        },
        (err: unknown) => {
          running.delete(controller);
          kept.delete(controller);
          held.delete(controller);
          const wasAccepted = accepted.delete(controller);
          // Stopped after the outbox accepted it: not a failure, the outbox sends it and reports it later.
          if (wasAccepted && controller.signal.aborted) return;
          // Taken over by another instance (shared outbox): that one sends it and its send node reports it.
          if (wasAccepted && err instanceof Error && err.cause instanceof EntryTakenOver) {
            show();
            return;
          }
          const gatewayError = toGatewayError(err);
          lastStatus = failed(statusTextOf(gatewayError));
          lastWasAuth = gatewayError.code === 'AUTH';
          host?.report(gatewayError);
          show();
          if (wasAccepted) node.error(new NodeGatewayError(gatewayError), msg);
          else done(new NodeGatewayError(gatewayError));
        },
      )
      .catch((err: unknown) => {
        // A throwing send() (downstream bug) must not become an unhandled rejection.
        node.warn(err instanceof Error ? err.message : String(err));
      });
  });

  node.on('close', () => {
    unsubscribe?.();
    for (const c of running) c.abort();
    running.clear();
    spare.length = 0;
    kept.clear();
    held.clear();
    // `accepted` empties as the aborted handlers end: each must still know that its msg was acknowledged.
    node.status({});
  });

  return {
    result(status: NodeStatus): void {
      lastStatus = status;
      lastWasAuth = false;
      show();
    },
  };
}

/**
 * msg.outbox = { cancel: true }: the messages the quiet hours hold that were sent with this msg.topic are
 * removed from the outbox (their msgs fail with REJECTED); the msg goes on with `{ cancelled, topic }`.
 */
async function cancelHeld(
  RED: NodeAPI,
  host: ReliabilityHost | undefined,
  topic: unknown,
): Promise<InputResult> {
  if (typeof topic !== 'string' || topic === '')
    throw new GatewayError('VALIDATION', 'msg.outbox.cancel needs msg.topic: the topic of the held messages');
  if (!host) throw new GatewayError('CONFIG', 'no gateway configuration');
  const cancelled = await host.cancelHeld(topic);
  return {
    payload: { cancelled, topic },
    status: { fill: 'grey', shape: 'dot', text: RED._(sharedKey('status.cancelled'), { count: cancelled }) },
  };
}

/** A result's status with the recipients the opt-out list left out: "JobId 12 (1 opted out)", yellow. */
function partlyStatus(RED: NodeAPI, status: NodeStatus, error: GatewayError): NodeStatus {
  const detail = error.detail as { optedOut?: unknown[] } | undefined;
  const count = Array.isArray(detail?.optedOut) ? detail.optedOut.length : 1;
  return warn(RED._(sharedKey('status.partlyOptedOut'), { status: String(status.text ?? ''), count }));
}
