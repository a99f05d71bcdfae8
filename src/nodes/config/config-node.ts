/** The config node as the other nodes see it: its client and the hosts shared by the nodes that use it. */
import type { Node } from 'node-red';
import type { GatewayClient } from '../../client';
import type { GatewayError } from '../../errors';
import type { CoordinationHost } from './coordination-host';
import type { ReliabilityHost } from './reliability-host';
import type { Destination, OptOutGate, ServiceKind, SmsgwCredentials } from './types';

export interface SmsgwConfigNode extends Node<SmsgwCredentials> {
  readonly service: ServiceKind;
  /** CONFIG "gateway '<name>' has no user/password" when the credentials lack either; else undefined. */
  readonly accountError: GatewayError | undefined;
  /** Where the deployed configuration sends requests: Test connection uses its credentials only there. */
  readonly destination: Destination;
  /** The one client shared by every node using this config (built on first use). */
  getClient(): GatewayClient;
  register(user: Node): void;
  deregister(user: Node): void;
  /** Flow control, reference, outbox and the connection state shared by this config's nodes. */
  readonly reliability?: ReliabilityHost;
  /** Set only when "Coordinate instances through Redis" is on. */
  readonly coordination?: CoordinationHost;
  /** The opt-out list (Opt-out tab); set only while it is on. */
  readonly optOut?: OptOutGate;
}
