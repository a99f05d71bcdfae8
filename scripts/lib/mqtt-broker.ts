/**
 * The sandbox's MQTT broker: aedes (a devDependency) in this process, so the MQTT example flow runs as imported
 * (its broker configuration points at 127.0.0.1:1883) and a reading can be published without any MQTT tool.
 * Tests use a real Mosquitto instead (test/e2e/mosquitto.ts).
 */
import { createServer } from 'node:net';
import { assertPortFree } from './proc';

/** Where the example flows' MQTT broker configuration points: the usual MQTT port on this machine. */
export const SANDBOX_MQTT = { host: '127.0.0.1', port: 1883 } as const;

export interface RunningBroker {
  port: number;
  url: string;
  /** Publishes as a client would (QoS 0, not retained). */
  publish(topic: string, payload: string): Promise<void>;
  /**
   * Resolves true once a client has subscribed to a filter that matches `topic` (at once when one has), false
   * after `ms`: a reading published before a flow's MQTT in node subscribed is lost (QoS 0, not retained).
   */
  listening(topic: string, ms: number): Promise<boolean>;
  stop(): Promise<void>;
}

/** Starts aedes on 127.0.0.1:`port` (0: any free port). */
export async function startMqttBroker(port: number): Promise<RunningBroker> {
  // aedes is ESM only; loaded when a broker is wanted, so nothing else pays for it
  const { Aedes } = await import('aedes');
  const broker = await Aedes.createBroker();
  const server = createServer(broker.handle);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, SANDBOX_MQTT.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (e) {
    await new Promise<void>((resolve) => broker.close(() => resolve()));
    throw e;
  }
  const filters: string[] = [];
  const waiting = new Set<() => void>();
  broker.on('subscribe', (subs: { topic: string }[]) => {
    for (const sub of subs) filters.push(sub.topic);
    for (const w of [...waiting]) w();
  });
  const addr = server.address();
  const bound = typeof addr === 'object' && addr ? addr.port : port;
  return {
    port: bound,
    url: `mqtt://${SANDBOX_MQTT.host}:${bound}`,
    publish: (topic, payload) =>
      new Promise((resolve, reject) =>
        broker.publish(
          { cmd: 'publish', topic, payload: Buffer.from(payload), qos: 0, retain: false, dup: false },
          (err) => (err ? reject(err) : resolve()),
        ),
      ),
    listening: (topic, ms) =>
      new Promise((resolve) => {
        const check = (): void => {
          if (!filters.some((f) => topicMatches(f, topic))) return;
          finish(true);
        };
        const timer = setTimeout(() => finish(false), ms);
        const finish = (yes: boolean): void => {
          clearTimeout(timer);
          waiting.delete(check);
          resolve(yes);
        };
        waiting.add(check);
        check();
      }),
    stop: () =>
      new Promise((resolve) => {
        server.close();
        broker.close(() => resolve());
      }),
  };
}

/** Whether the MQTT topic filter `filter` (with + and #) matches `topic`. */
export function topicMatches(filter: string, topic: string): boolean {
  const f = filter.split('/');
  const t = topic.split('/');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '#') return true;
    if (i >= t.length) return false;
    if (f[i] !== '+' && f[i] !== t[i]) return false;
  }
  return f.length === t.length;
}

/**
 * The port for the sandbox broker: the one asked for (--mqtt-port, SMSGW_MQTT_PORT), which must be free; else
 * 1883, or any free port when 1883 is taken (a broker of your own often is there): the sandbox then points the
 * example's broker configuration at the port it got.
 */
export async function sandboxMqttPort(asked: number | undefined, log: (s: string) => void): Promise<number> {
  if (asked !== undefined) {
    await assertPortFree(asked, 'choose another with --mqtt-port or SMSGW_MQTT_PORT');
    return asked;
  }
  try {
    await assertPortFree(SANDBOX_MQTT.port, '');
    return SANDBOX_MQTT.port;
  } catch {
    log(
      `port ${SANDBOX_MQTT.port} is taken (a broker of your own?): the sandbox broker takes a free port and the ` +
        `examples' MQTT broker configuration is pointed there (--mqtt-port chooses one)`,
    );
    return 0;
  }
}
