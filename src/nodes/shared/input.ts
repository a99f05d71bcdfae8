import type { Node, NodeAPI, NodeMessage, NodeMessageInFlow, NodeStatus } from 'node-red';
import { NodeGatewayError, statusTextOf, toGatewayError } from './errors';
import { failed, inFlight } from './status';

export interface InputResult {
  /** Becomes msg.payload; every other property of the incoming msg is kept. */
  payload: unknown;
  /** Status shown once no other request of this node is in flight. */
  status: NodeStatus;
  /** Messages for outputs 2..n (output 1 always receives the msg). */
  more?: (NodeMessage | null)[];
}

export type InputHandler = (msg: NodeMessageInFlow, signal: AbortSignal) => Promise<InputResult>;

/**
 * The one input path of every action node: counts requests in flight (blue status), sends the msg with its
 * result then calls done(), or calls done(err) only (a Catch node gets msg.error with code and cause).
 * Requests still running when the node closes are aborted.
 */
export function onInput(RED: NodeAPI, node: Node, handler: InputHandler): void {
  const running = new Set<AbortController>();
  let lastStatus: NodeStatus = {};

  const show = (): void => {
    node.status(running.size > 0 ? inFlight(RED, running.size) : lastStatus);
  };

  node.on('input', (msg: NodeMessageInFlow, send, done) => {
    const controller = new AbortController();
    running.add(controller);
    show();
    handler(msg, controller.signal)
      .then(
        (result) => {
          running.delete(controller);
          lastStatus = result.status;
          show();
          (msg as Record<string, unknown>).payload = result.payload;
          send(result.more ? [msg, ...result.more] : msg);
          done();
        },
        (err: unknown) => {
          running.delete(controller);
          const gatewayError = toGatewayError(err);
          lastStatus = failed(statusTextOf(gatewayError));
          show();
          done(new NodeGatewayError(gatewayError));
        },
      )
      .catch((err: unknown) => {
        // A throwing send() (downstream bug) must not become an unhandled rejection.
        node.warn(err instanceof Error ? err.message : String(err));
      });
  });

  node.on('close', () => {
    for (const c of running) c.abort();
    running.clear();
    node.status({});
  });
}
