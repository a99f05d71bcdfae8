/**
 * smsgw-config: where the gateway is and how to talk to it. Owns the one GatewayClient shared by every node
 * that uses this config (users register and deregister like core mqtt) and closes it when the flow stops.
 */
import type { Node, NodeAPI } from 'node-red';
import { GatewayClient } from '../client';
import { registerAdminRoutes } from './shared/admin';
import { clientOptions } from './shared/client-options';
import type { ServiceKind, SmsgwConfigDef, SmsgwConfigNode, SmsgwCredentials } from './shared/types';

interface ConfigInternals extends SmsgwConfigNode {
  service: ServiceKind;
  users: Map<string, Node>;
  client: GatewayClient | undefined;
}

export default (RED: NodeAPI): void => {
  function SmsgwConfig(this: ConfigInternals, def: SmsgwConfigDef): void {
    RED.nodes.createNode(this, def);
    start(this, def);
  }

  function start(node: ConfigInternals, def: SmsgwConfigDef): void {
    node.service = def.service === 'legacy' ? 'legacy' : 'gateway';
    node.users = new Map();
    node.client = undefined;

    node.getClient = (): GatewayClient => {
      // Built on first use so a bad setting surfaces as an error on the msg that needed the client.
      node.client ??= new GatewayClient(clientOptions(def, (node.credentials ?? {}) as SmsgwCredentials));
      return node.client;
    };
    node.register = (user: Node): void => {
      node.users.set(user.id, user);
    };
    node.deregister = (user: Node): void => {
      node.users.delete(user.id);
    };

    node.on('close', (_removed: boolean, done: () => void) => {
      const client = node.client;
      node.client = undefined;
      if (!client) {
        done();
        return;
      }
      client.close().then(
        () => done(),
        (err: unknown) => {
          node.warn(err instanceof Error ? err.message : String(err));
          done();
        },
      );
    });
  }

  RED.nodes.registerType<ConfigInternals, SmsgwConfigDef, object, SmsgwCredentials>('smsgw-config', SmsgwConfig, {
    credentials: { user: { type: 'text' }, password: { type: 'password' } },
  });
  registerAdminRoutes(RED);
};
