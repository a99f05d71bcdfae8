/**
 * Two inbound (or two HLR-result) triggers on one gateway configuration split the messages the service hands
 * out once: the second warns at deploy time, naming the first (issue 14 §5).
 */
import assert from 'node:assert/strict';
import { flowWith, helper, loadFlow, startEnv, stopEnv, warnings, type Env } from './helpers';

describe('nodes: two triggers reading one queue through one gateway configuration', () => {
  let env: Env;
  before(async () => {
    env = await startEnv();
  });
  after(() => stopEnv(env));
  afterEach(() => helper.unload());

  const trigger = (id: string, type: string, gateway = 'cfg', name = '') => ({
    id,
    type,
    name,
    gateway,
    interval: 3600,
    inputs: 1,
    wires: [['out']],
  });

  it('a second inbound SMS trigger on the same gateway warns at deploy, naming the first', async () => {
    await loadFlow(
      flowWith(env.emu.url, [trigger('a', 'smsgw-inbound', 'cfg', 'replies'), trigger('b', 'smsgw-inbound')]),
    );
    const all = [...warnings('a'), ...warnings('b')];
    assert.equal(all.length, 1, all.join('\n'));
    // the test runtime has no catalogues: the key, or its en-US text naming the first trigger
    assert.match(
      all[0]!,
      /warn\.sharedQueue\.inbound$|^Another inbound SMS trigger uses this gateway configuration \(replies\)/,
    );
  });

  it('a second HLR results trigger on the same gateway warns too', async () => {
    await loadFlow(
      flowWith(env.emu.url, [trigger('a', 'smsgw-hlr-results'), trigger('b', 'smsgw-hlr-results')]),
    );
    const all = [...warnings('a'), ...warnings('b')];
    assert.equal(all.length, 1, all.join('\n'));
    assert.match(
      all[0]!,
      /warn\.sharedQueue\.hlr$|^Another HLR results trigger uses this gateway configuration/,
    );
  });

  it('one of each kind, or the same kind on two gateways, warns nothing', async () => {
    const flow = flowWith(env.emu.url, [
      trigger('a', 'smsgw-inbound'),
      trigger('b', 'smsgw-hlr-results'),
      trigger('c', 'smsgw-inbound', 'cfg2'),
    ]);
    flow.push({ ...flow.find((n) => n.id === 'cfg')!, id: 'cfg2' });
    await loadFlow(flow, {
      cfg: { user: 'demo', password: 'demo-password' },
      cfg2: { user: 'demo', password: 'demo-password' },
    });
    assert.deepEqual([...warnings('a'), ...warnings('b'), ...warnings('c')], []);
  });
});
