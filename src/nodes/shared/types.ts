import type { Node, NodeDef, NodeMessage } from 'node-red';
import type { GatewayClient } from '../../client';

/** Which of the two services a config node talks to for balance, inbound and connection tests. */
export type ServiceKind = 'gateway' | 'legacy';
export type TransportKind = 'soap11' | 'soap12' | 'get' | 'post';

export interface SmsgwCredentials {
  user?: string;
  password?: string;
}

/** What the editor stores for a config node (numbers arrive as strings from older editors). */
export interface SmsgwConfigDef extends NodeDef {
  baseUrl: string;
  service: ServiceKind;
  transport: TransportKind;
  allowInsecure?: boolean;
  gatewayNamespace?: string;
  legacyNamespace?: string;
  customerPath?: string;
  timeout?: number | string;
  maxConnections?: number | string;
  proxyUrl?: string;
  tlsRejectUnauthorized?: boolean;
  tlsCa?: string;
}

export interface SmsgwConfigNode extends Node<SmsgwCredentials> {
  readonly service: ServiceKind;
  /** The one client shared by every node using this config (built on first use). */
  getClient(): GatewayClient;
  register(user: Node): void;
  deregister(user: Node): void;
}

/** A typedInput value as stored in a node's defaults: the value text and its type (msg, str, env, ...). */
export interface TypedValue {
  value: string;
  type: string;
}

/** Messages our nodes read; every extra property passes through untouched. */
export type SmsgwMessage = NodeMessage & Record<string, unknown>;
