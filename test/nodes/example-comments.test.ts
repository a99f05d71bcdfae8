/**
 * What the examples' comments tell a user to do works wherever the emulator runs (issue 21 §9): no fixed
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
});
