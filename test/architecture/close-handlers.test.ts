/**
 * A Node-RED node's close handlers are registered with on('close'), never once('close'): Node-RED keeps them in an
 * array and calls them in a loop, and EventEmitter's once-wrapper removes itself from that array while the loop
 * runs, so the handler registered after it is skipped (a config node's delivery tracker then kept its jobs over a
 * redeploy). Node's http responses (res.once('close')) are ordinary emitters and are not concerned.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import helper from 'node-red-node-test-helper';

const SRC = path.join(__dirname, '..', '..', 'src', 'nodes');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('architecture: close handlers of Node-RED nodes', () => {
  it("src/nodes registers no close handler with once('close')", () => {
    const found = files(SRC).flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .map((line, i) => ({ line, at: `${path.relative(SRC, f)}:${i + 1}` }))
        .filter(({ line }) => /\.once\(\s*['"]close['"]/.test(line) && !/\bres\.once\(/.test(line)),
    );
    assert.deepEqual(
      found.map((x) => x.at),
      [],
    );
  });

  it("Node-RED skips the close handler after a once('close') one (why the rule exists)", async () => {
    helper.init(require.resolve('node-red'));
    const ran: string[] = [];
    const setup = (RED: {
      nodes: { createNode(n: unknown, c: unknown): void; registerType(t: string, f: unknown): void };
    }): void => {
      function Probe(
        this: { once(e: string, f: () => void): void; on(e: string, f: () => void): void },
        c: unknown,
      ): void {
        RED.nodes.createNode(this, c);
        this.once('close', () => ran.push('once'));
        this.on('close', () => ran.push('on, registered after'));
      }
      RED.nodes.registerType('close-probe', Probe);
    };
    await new Promise<void>((resolve) => helper.startServer(() => resolve()));
    try {
      await helper.load(setup as never, [{ id: 'p', type: 'close-probe' }]);
      await helper.unload();
    } finally {
      await new Promise<void>((resolve) => helper.stopServer(() => resolve()));
    }
    assert.deepEqual(ran, ['once']);
  });
});
