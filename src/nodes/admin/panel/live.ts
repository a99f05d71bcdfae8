/**
 * Live updates of the panel: the runtime publishes a small note on the comms topic `smsgw/panel/<config id>`
 * when something a section shows may have changed (a call ended, the outbox or the queues moved), at most once a
 * second per configuration; each open editor then fetches the sections it shows. Several editors cost one
 * publish, not one poll each. The note carries no data: what a user sees still goes through the routes and their
 * permissions.
 */
import type { NodeAPI } from 'node-red';
import type { SmsgwConfigNode } from '../../config/config-node';
import { toGatewayError } from '../../common/errors';
import { systemClock, type Clock } from '../../../reliability/clock';
import { Throttle } from './throttle';

export const PANEL_TOPIC = 'smsgw/panel/';
export const PUBLISH_EVERY_MS = 1000;

/** The last call to the gateway that failed (its error code and readable line; credentials are masked in it). */
export interface LastError {
  at: number;
  code: string;
  message: string;
}

interface Watch {
  lastError: LastError | undefined;
  throttle: Throttle;
}

const watches = new WeakMap<object, Watch>();

/**
 * Watches a config node for the panel from its start: every call's outcome (through the flow control each call
 * passes) and every change of its shared state. Stopped with the node.
 */
export function watchForPanel(RED: NodeAPI, config: SmsgwConfigNode, clock: Clock = systemClock): void {
  const host = config.reliability;
  if (!host) return;
  const throttle = new Throttle(clock, PUBLISH_EVERY_MS, () => {
    RED.comms.publish(`${PANEL_TOPIC}${config.id}`, { changed: true }, false);
  });
  const watch: Watch = { lastError: undefined, throttle };
  watches.set(config, watch);
  const offCall = host.onCall((err) => {
    if (err !== undefined) {
      const e = toGatewayError(err);
      watch.lastError = { at: clock.now(), code: e.code, message: e.message };
    }
    throttle.poke();
  });
  const offState = host.subscribe(config, () => throttle.poke());
  // on, not once: Node-RED runs its close callbacks from an array, and a once-wrapper that removes itself while
  // they run makes it skip the next one (the delivery tracker's, registered right after this).
  config.on('close', () => {
    offCall();
    offState();
    throttle.stop();
    watches.delete(config);
  });
}

/** Something a section shows changed outside a call (an action of the panel itself). */
export function panelChanged(config: SmsgwConfigNode): void {
  watches.get(config)?.throttle.poke();
}

export const lastGatewayError = (config: SmsgwConfigNode): LastError | undefined =>
  watches.get(config)?.lastError;
