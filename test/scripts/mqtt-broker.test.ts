import { strict as assert } from 'node:assert';
import { createServer, type Server } from 'node:net';
import { connectAsync } from 'mqtt';
import { examplesForDeploy, listExamples, repointMqttBrokers, type FlowNode } from '../../scripts/lib/flows';
import { sandboxMqttPort, startMqttBroker, topicMatches } from '../../scripts/lib/mqtt-broker';

// The sandbox's MQTT broker (aedes) and how the examples' broker configuration follows it.

const freezer = (): FlowNode[] => listExamples().find((e) => e.name === 'Freezer alarm over MQTT')!.nodes;
const brokerOf = (flow: FlowNode[]): FlowNode => flow.find((n) => n.type === 'mqtt-broker')!;

describe('sandbox: MQTT broker', () => {
  it('the MQTT example points at the sandbox default, 127.0.0.1:1883', () => {
    const b = brokerOf(freezer());
    assert.equal(b.broker, '127.0.0.1');
    assert.equal(String(b.port), '1883');
  });

  it('delivers what it publishes (a typed reading) to a subscriber', async () => {
    const broker = await startMqttBroker(0);
    const client = await connectAsync(broker.url, { reconnectPeriod: 0 });
    try {
      await client.subscribeAsync('home/freezer/temperature');
      const got = new Promise<string>((resolve) => client.once('message', (_t, p) => resolve(p.toString())));
      await broker.publish('home/freezer/temperature', '-9');
      assert.equal(await got, '-9');
    } finally {
      await client.endAsync();
      await broker.stop();
    }
  });

  it('tells when a client listens on a topic: not before it subscribed, at once after (so "ready" means heard)', async () => {
    const broker = await startMqttBroker(0);
    const client = await connectAsync(broker.url, { reconnectPeriod: 0 });
    try {
      assert.equal(await broker.listening('home/freezer/temperature', 50), false, 'nobody subscribed yet');
      const heard = broker.listening('home/freezer/temperature', 10_000);
      await client.subscribeAsync('home/+/temperature');
      assert.equal(await heard, true);
      assert.equal(await broker.listening('home/freezer/temperature', 50), true, 'at once when one has');
      assert.equal(await broker.listening('home/freezer/door', 50), false, 'another topic');
    } finally {
      await client.endAsync();
      await broker.stop();
    }
  });

  it('matches MQTT topic filters with + and #', () => {
    assert.ok(topicMatches('home/freezer/temperature', 'home/freezer/temperature'));
    assert.ok(topicMatches('home/+/temperature', 'home/chest-freezer/temperature'));
    assert.ok(topicMatches('home/#', 'home/freezer/temperature'));
    assert.ok(topicMatches('#', 'a'));
    assert.ok(!topicMatches('home/+', 'home/freezer/temperature'));
    assert.ok(!topicMatches('home/freezer/temperature/x', 'home/freezer/temperature'));
    assert.ok(!topicMatches('home/freezer', 'home/fridge'));
  });

  it('a port asked for must be free; it is used as asked', async () => {
    const taken: Server = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', () => r()));
    const port = (taken.address() as { port: number }).port;
    try {
      await assert.rejects(
        sandboxMqttPort(port, () => undefined),
        /already in use.*--mqtt-port/,
      );
    } finally {
      taken.close();
    }
    assert.equal(await sandboxMqttPort(port, () => undefined), port);
  });

  it('examplesForDeploy points broker configurations at the given broker, or leaves them unconnected', () => {
    const ex = [{ name: 'Freezer alarm over MQTT', nodes: freezer() }];
    const at = brokerOf(
      examplesForDeploy('http://127.0.0.1:1', ex, { mqtt: { host: '127.0.0.1', port: 4242 } }),
    );
    assert.equal(at.port, '4242');
    assert.notEqual(at.autoConnect, false);
    const none = brokerOf(examplesForDeploy('http://127.0.0.1:1', ex));
    assert.equal(none.autoConnect, false);
  });

  it('kept flows follow the broker to its port: only broker configurations on this machine', () => {
    const flows: FlowNode[] = [
      { id: 'a', type: 'mqtt-broker', broker: '127.0.0.1', port: '1883' },
      { id: 'b', type: 'mqtt-broker', broker: 'localhost', port: '39999' },
      { id: 'c', type: 'mqtt-broker', broker: 'broker.example.org', port: '1883' },
      { id: 'd', type: 'mqtt-broker', broker: '127.0.0.1', port: '41000' },
    ];
    assert.equal(repointMqttBrokers(flows, 41000), 2);
    assert.deepEqual(
      flows.map((n) => n.port),
      ['41000', '41000', '1883', '41000'],
    );
  });
});
