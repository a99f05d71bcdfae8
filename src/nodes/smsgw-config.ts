/**
 * smsgw-config: where the gateway is and how to talk to it. Owns the one GatewayClient shared by every node
 * that uses this config (users register and deregister like core mqtt) and closes it when the flow stops.
 */
import type { Node, NodeAPI } from 'node-red';
import { GatewayClient } from '../client';
import { preloadClient } from '../client/preload';
import { registerAdminRoutes } from './admin/admin';
import { clientOptions } from './config/client-options';
import { attachDeliveryTracker } from './send/delivery-host';
import { attachQueueReaders, type ReaderOwner } from './polling/reader-host';
import { ReliabilityHost } from './config/reliability-host';
import { CoordinationHost, coordinationOf } from './config/coordination-host';
import { GatewayError, isGatewayError } from '../errors';
import type { SmsgwConfigNode } from './config/config-node';
import type { Destination, OptOutGate, ServiceKind, SmsgwConfigDef, SmsgwCredentials } from './config/types';
import { OptOutHost, optOutListenerId, optOutSettings } from './optout/host';
import { INBOUND } from './polling/queue-kinds';
import { RedisOptOutList } from './optout/store-redis';
import { accountErrorOf, destinationOf } from './config/account';
import { nameUnnamed } from './config/config';
import { userDirOf } from './common/user-dir';
import { sharedKey } from './common/status';
import { deployFields } from './common/fields';
import { watchForPanel } from './admin/panel/live';

/** How long a stopping flow waits for the gateway's requests in flight. */
const CLOSE_WAIT_MS = 5000;

interface ConfigInternals extends SmsgwConfigNode, ReaderOwner {
  service: ServiceKind;
  accountError: GatewayError | undefined;
  destination: Destination;
  users: Map<string, Node>;
  client: GatewayClient | undefined;
  reliability: ReliabilityHost;
  coordination: CoordinationHost | undefined;
  optOut: OptOutGate | undefined;
  optOutHost: OptOutHost | undefined;
}

export default (RED: NodeAPI): void => {
  function SmsgwConfig(this: ConfigInternals, def: SmsgwConfigDef): void {
    RED.nodes.createNode(this, def);
    start(this, def);
  }

  function start(node: ConfigInternals, def: SmsgwConfigDef): void {
    nameUnnamed(RED, node);
    // Every field judged by its rule (src/nodes/fields/config.ts): a refused one is logged once here, each node
    // using this configuration shows it and fails every msg with it (the client and flow control are never built).
    const values = deployFields(RED, node, 'smsgw-config', def);
    const accepted = values !== undefined;
    node.service = def.service === 'legacy' ? 'legacy' : 'gateway';
    node.accountError = accountErrorOf(def, node.credentials as SmsgwCredentials | undefined);
    node.destination = destinationOf(def);
    node.users = new Map();
    node.client = undefined;
    // The client's libraries load at deploy, not while the first msg waits and every other flow with it.
    setImmediate(preloadClient, def.defaultCountry);

    node.getClient = (): GatewayClient => {
      // Built on first use so a bad setting surfaces as an error on the msg that needed the client.
      if (node.reliability.configError) throw node.reliability.configError;
      node.client ??= new GatewayClient({
        ...clientOptions(def, (node.credentials ?? {}) as SmsgwCredentials),
        // One flow control for every node of this config: they share its rate, slots and queue.
        flowControl: node.reliability.flow,
      });
      return node.client;
    };
    node.register = (user: Node): void => {
      node.users.set(user.id, user);
    };
    node.deregister = (user: Node): void => {
      node.users.delete(user.id);
    };
    // Flow control, reference, durable outbox and the auth state shown on every node (docs/reliability.md).
    // "Coordinate instances through Redis" (docs/scaling.md): nothing of it exists when it is off.
    const coordination = accepted ? startCoordination(node, def) : undefined;
    node.coordination = coordination;
    node.reliability = new ReliabilityHost(
      RED,
      node,
      def,
      () => node.getClient(),
      () => node.users.values(),
      coordination,
    );
    if (coordination) {
      coordination.shareRate(node.reliability.flow);
      node.reliability.gateSends({
        problem: () => coordination.problem(),
        ready: () => coordination.link?.ready() ?? Promise.resolve(),
      });
      const changed = (): void => node.reliability.gateChanged();
      coordination.link?.on('up', changed);
      coordination.link?.on('down', changed);
    }
    if (userDirOf(RED) === undefined) {
      // Said once here for every feature of this config that keeps state (readers, tracked deliveries, open
      // questions of the ask node, budget counts) instead of silently by each: they run on, in memory only. The
      // outbox, chosen for its durability, refuses instead (ReliabilityHost).
      node.warn(RED._(sharedKey('warn.memoryOnly')));
    }
    // The panel hears every call's outcome and state change of this config from its start (the last error).
    watchForPanel(RED, node);
    // The one delivery-report poll shared by this config's tracking send nodes.
    attachDeliveryTracker(RED, node);
    // The one reader of new inbound messages (and of new HLR results) shared by the triggers listening to it.
    // The opt-out list's listener, switched off since it last ran, is forgotten: replies are not held for it.
    const optOutOn = values?.optOut === true;
    const keywordsOn = optOutOn && values.optOutKeywords !== false;
    attachQueueReaders(RED, node, (type) =>
      type === INBOUND.type && !keywordsOn ? [optOutListenerId(node.id)] : [],
    );
    // The opt-out list (Opt-out tab): checked by the send gate, fed by STOP / START / HELP replies.
    if (optOutOn) startOptOut(node, def, values);

    node.on('close', (removed: boolean, done: () => void) => {
      // The outbox first (a send from it may be under way), then the client; within Node-RED's 15 s.
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, CLOSE_WAIT_MS);
      });
      const coordination = node.coordination;
      node.coordination = undefined;
      // The readers first: a read that collects gets its grace and its records are written down (the client and
      // Redis are still there for it). The Redis connection closes after the outbox (it releases its lease in
      // Redis through it).
      const optOut = node.optOutHost;
      node.optOut = undefined;
      node.optOutHost = undefined;
      const readers = Promise.all([optOut?.close(removed), node.closeReaders()]);
      const reliability = readers.then(() => node.reliability.close(removed));
      void Promise.race([Promise.all([reliability, coordination?.close(reliability)]), waited])
        .catch((err: unknown) => node.warn(err instanceof Error ? err.message : String(err)))
        .then(() => {
          clearTimeout(timer);
          closeClient(node, done);
        });
    });
  }

  function startOptOut(node: ConfigInternals, def: SmsgwConfigDef, values: Record<string, unknown>): void {
    const link = node.coordination?.link;
    if (node.coordination && !link) {
      // Coordination refused its own settings (it said so): no list can be shared, so nothing is sent.
      const error = new GatewayError('CONFIG', 'the opt-out list cannot be shared: Redis is not set up');
      node.optOut = {
        refused: () => Promise.reject(error),
        skippedAtSend: () => undefined,
        snapshot: () => Promise.reject(error),
        confirm: () => Promise.reject(error),
        exportCsv: () => Promise.reject(error),
        importCsv: () => Promise.reject(error),
        flowChange: () => Promise.reject(error),
        check: () => Promise.reject(error),
      };
      return;
    }
    // Coordinated: one list in Redis for every instance (a STOP read by one refuses the number on all).
    const shared =
      link && node.coordination
        ? new RedisOptOutList(link, node.coordination.key('optout'), {
            onOdd: (count) => node.warn(RED._(sharedKey('optOut.odd'), { count })),
          })
        : undefined;
    if (shared && node.coordination?.keySpace) {
      const onLost = (why: string, since: number): void =>
        void shared.markLost(why, since).catch(() => undefined);
      node.coordination.keySpace.on('lost', onLost);
      node.on('close', () => node.coordination?.keySpace?.off('lost', onLost)); // on, not once (test/architecture/close-handlers.test.ts)
    }
    const host = new OptOutHost(RED, node, def, optOutSettings(values), shared);
    node.optOutHost = host;
    node.optOut = host;
    node.reliability.attemptCheck = (entry) => host.checkAttempt(entry);
  }

  /** "Coordinate instances through Redis": nothing is built (nor the client library loaded) when it is off. */
  function startCoordination(node: ConfigInternals, def: SmsgwConfigDef): CoordinationHost | undefined {
    let setting;
    try {
      setting = coordinationOf(def, (node.credentials ?? {}) as SmsgwCredentials);
    } catch (e) {
      setting = isGatewayError(e) ? e : new GatewayError('CONFIG', String(e));
    }
    return setting ? new CoordinationHost(RED, node, setting) : undefined;
  }

  function closeClient(node: ConfigInternals, done: () => void): void {
    const client = node.client;
    node.client = undefined;
    if (!client) {
      done();
      return;
    }
    // close() lets requests in flight finish; Node-RED gives a close handler 15 s, so stop waiting sooner
    // (the pool still closes in the background once those requests end or time out).
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, CLOSE_WAIT_MS);
    });
    Promise.race([client.close(), waited])
      .catch((err: unknown) => node.warn(err instanceof Error ? err.message : String(err)))
      .finally(() => {
        clearTimeout(timer);
        done();
      });
  }

  RED.nodes.registerType<ConfigInternals, SmsgwConfigDef, object, SmsgwCredentials>(
    'smsgw-config',
    SmsgwConfig,
    {
      credentials: {
        user: { type: 'text' },
        password: { type: 'password' },
        proxyPassword: { type: 'password' },
        redisPassword: { type: 'password' },
      },
    },
  );
  registerAdminRoutes(RED);
};
