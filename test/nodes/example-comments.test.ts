/**
 * What the examples' comments tell a user to do works wherever the emulator runs: no fixed
 * emulator address (the sandbox may run on other ports: the gateway configuration's Base URL is where it is), and
 * a command that changes a subscriber does what the words around it say, to the number the example uses.
 */
import assert from 'node:assert/strict';
import { listExamples, type FlowNode } from '../../scripts/lib/flows';

/** The texts a user reads in an example: its tab's and comments' info and names. */
const textsOf = (nodes: FlowNode[]): string[] =>
  nodes
    .filter((n) => n.type === 'comment' || n.type === 'tab')
    .flatMap((n) => [String(n.name ?? n.label ?? ''), String(n.info ?? '')]);

describe('nodes: example comments', () => {
  for (const { name, nodes } of listExamples()) {
    it(`"${name}": no fixed emulator address in what it tells the user`, () => {
      const fixed = textsOf(nodes).filter((t) => /\b(127\.0\.0\.1|localhost):8080\b/.test(t));
      assert.deepEqual(fixed, []);
    });
  }

  it('a command that sets a subscriber state says which state, for a number the example checks', () => {
    let commands = 0;
    for (const { name, nodes } of listExamples()) {
      const numbers = JSON.stringify(nodes.filter((n) => n.type === 'inject'));
      for (const text of textsOf(nodes)) {
        for (const m of text.matchAll(/curl [^\n]*\/_emulator\/subscriber[^\n]*-d '([^']+)'/g)) {
          commands++;
          const body = JSON.parse(m[1]!) as { number: string; state: string };
          const prose = text.replace(m[0], '');
          assert.match(
            prose,
            new RegExp(`\\b${body.state}\\b`),
            `${name}: the text does not say "${body.state}"`,
          );
          assert.ok(numbers.includes(body.number), `${name}: no inject uses ${body.number}`);
        }
      }
    }
    assert.ok(commands > 0, 'no example sets a subscriber state');
  });

  // Imported one after the other into a plain Node-RED, examples that share a configuration's id reuse it ("Import
  // copy" keeps the existing node), so address and account are typed once. Spending guard brings its own on
  // purpose (its limit must not hold back the other flows) and says so; so does Customer replies STOP (its opt-out
  // list reads the account's replies before the other examples' inbound triggers and checks their sends).
  it('the examples share one gateway configuration and one MQTT broker configuration; each says what it needs', () => {
    const configs = new Map<string, string[]>();
    for (const { name, nodes } of listExamples()) {
      for (const n of nodes.filter((x) => x.type === 'smsgw-config' || x.type === 'mqtt-broker')) {
        const key = `${n.type} ${n.id}`;
        configs.set(key, [...(configs.get(key) ?? []), name]);
      }
      const texts = textsOf(nodes).join('\n');
      assert.match(texts, /^Needs: /m, `${name}: no "Needs:" line`);
      if (nodes.some((n) => n.type === 'mqtt-broker')) assert.match(texts, /Needs: an MQTT broker/, name);
    }
    const gateways = [...configs].filter(([k]) => k.startsWith('smsgw-config '));
    const brokers = [...configs].filter(([k]) => k.startsWith('mqtt-broker '));
    assert.deepEqual(
      gateways.map(([, names]) => names.length).sort((a, b) => b - a),
      [listExamples().length - 2, 1, 1],
    );
    assert.deepEqual(
      gateways
        .filter(([, names]) => names.length === 1)
        .flatMap(([, names]) => names)
        .sort(),
      ['Customer replies STOP', 'Spending guard'],
    );
    assert.equal(brokers.length, 1, brokers.map(([k]) => k).join());
  });
});
