import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from './package';

export const CONFIG_TYPE = 'smsgw-config';
export const DEMO = { user: 'demo', password: 'demo-password' } as const;

export type FlowNode = Record<string, unknown> & { id: string; type: string; z?: string };

export interface Example {
  /** Path under examples/ without .json: also the label under Import > Examples. */
  name: string;
  nodes: FlowNode[];
}

export function listExamples(dir = join(ROOT, 'examples')): Example[] {
  const out: Example[] = [];
  const walk = (d: string): void => {
    if (!existsSync(d)) return;
    for (const entry of readdirSync(d).sort()) {
      const p = join(d, entry);
      if (statSync(p).isDirectory()) walk(p);
      else if (entry.endsWith('.json')) {
        const parsed = JSON.parse(readFileSync(p, 'utf8')) as unknown;
        if (!Array.isArray(parsed)) throw new Error(`${p} is not a flow export (array of nodes)`);
        out.push({ name: relative(dir, p).replace(/\.json$/, ''), nodes: parsed as FlowNode[] });
      }
    }
  };
  walk(dir);
  return out;
}

/** Deep-replaces every string equal to a key of `map` (ids appear in wires, z, g, links and config references). */
function remap(value: unknown, map: Map<string, string>): unknown {
  if (typeof value === 'string') return map.get(value) ?? value;
  if (Array.isArray(value)) return value.map((v) => remap(v, map));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, remap(v, map)]));
  }
  return value;
}

export const MQTT_BROKER_TYPE = 'mqtt-broker';

export interface DeployOptions {
  /** The MQTT broker the examples' broker configuration is pointed at; without it, they do not connect. */
  mqtt?: { host: string; port: number };
}

/**
 * An example's MQTT broker configuration pointed at `mqtt`, or left unconnected (autoConnect off) when there is
 * none: a deploy must not reach for whatever listens on the port written in the example.
 */
function mqttBrokerFor(n: FlowNode, mqtt: DeployOptions['mqtt']): FlowNode {
  return mqtt ? { ...n, broker: mqtt.host, port: String(mqtt.port) } : { ...n, autoConnect: false };
}

/**
 * Kept flows may point at a sandbox MQTT broker port from an earlier start: broker configurations on this machine
 * (127.0.0.1, localhost) follow the broker to `port`. Returns how many changed.
 */
export function repointMqttBrokers(flows: FlowNode[], port: number): number {
  let changed = 0;
  for (const n of flows) {
    if (n.type !== MQTT_BROKER_TYPE || !/^(127\.0\.0\.1|localhost)$/.test(String(n.broker ?? ''))) continue;
    if (String(n.port) === String(port)) continue;
    n.port = String(port);
    changed++;
  }
  return changed;
}

/**
 * The example flows, ready to deploy side by side: flow ids made unique per example (two examples may reuse
 * ids), a tab added where an example has none, and every gateway config node pointed at `baseUrl` with the
 * demo credentials inline (Node-RED strips and encrypts them on deploy), every MQTT broker configuration at
 * `opts.mqtt` (or not connecting). Global config nodes (no `z`) keep their
 * ids, and one shared by several examples is deployed once, as importing those examples one by one would do.
 */
export function examplesForDeploy(
  baseUrl: string,
  examples = listExamples(),
  opts: DeployOptions = {},
): FlowNode[] {
  const all: FlowNode[] = [];
  const globals = new Set<string>();
  for (const ex of examples) {
    const map = new Map<string, string>();
    for (const n of ex.nodes) {
      if (isGlobalConfig(n)) continue;
      map.set(n.id, createHash('sha1').update(`${ex.name}\0${n.id}`).digest('hex').slice(0, 16));
    }
    const nodes = remap(ex.nodes, map) as FlowNode[];
    const ids = new Set(nodes.map((n) => n.id));
    const missingTabs = new Set(nodes.map((n) => n.z).filter((z): z is string => !!z && !ids.has(z)));
    for (const z of missingTabs) all.push({ id: z, type: 'tab', label: ex.name, disabled: false, info: '' });
    for (const n of nodes) {
      if (isGlobalConfig(n)) {
        if (globals.has(n.id)) continue;
        globals.add(n.id);
      }
      if (n.type === CONFIG_TYPE) all.push({ ...n, baseUrl, credentials: { ...DEMO } });
      else if (n.type === MQTT_BROKER_TYPE) all.push(mqttBrokerFor(n, opts.mqtt));
      else all.push(n);
    }
  }
  return all;
}

function isGlobalConfig(n: FlowNode): boolean {
  return !n.z && n.type !== 'tab' && n.type !== 'subflow' && !('wires' in n);
}
