/**
 * First takers of a gateway's queue (polling/queue-reader.ts): a listener marked `first` (the opt-out list, the ask
 * hub) gets each record before the other listeners, which get it only once every first taker took it, with what the
 * first takers marked on it; across a failure of the first taker and across a restart.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import * as path from 'node:path';
import type { Node } from 'node-red';
import { INBOUND } from '../../src/nodes/polling/queue-kinds';
import type { InboundRecord } from '../../src/nodes/polling/inbound-queue';
import type { ListenerHandle, QueueListener, RecordMarks } from '../../src/nodes/polling/queue-reader';
import type { ReaderOwner } from '../../src/nodes/polling/reader-host';
import { flowWith, helper, loadFlow, startEnv, stopEnv, waitFor, type Env } from './helpers';

type Took = { who: string; text: string; marks: RecordMarks | undefined };

describe('nodes: first takers of a gateway queue get each record before the others, and mark it for them', () => {
  let env: Env;
  before(async () => {
    env = await startEnv();
  });
  after(() => stopEnv(env));
  afterEach(async () => {
    await helper.unload();
    rmSync(path.join(env.userDir, 'smsgw-state', 'smsgw-inbound-reader.cfg.json'), { force: true });
  });

  const reader = (): ReturnType<ReaderOwner['queueReader']> =>
    (helper.getNode('cfg') as unknown as Node & ReaderOwner).queueReader(INBOUND);

  const textOf = (r: InboundRecord): string => String((r as unknown as { Text?: unknown }).Text ?? '');

  /** A listener that notes what it took, in the order of all of them; `first` ones mark replies starting with "1". */
  function listener(
    id: string,
    took: Took[],
    opts: { first?: boolean; fail?: () => boolean } = {},
  ): QueueListener<InboundRecord> {
    return {
      id,
      first: opts.first,
      intervalMs: undefined,
      take: (records, _signal, marks) => {
        if (opts.fail?.()) return Promise.reject(new Error(`${id} cannot take now`));
        records.forEach((r, i) => took.push({ who: id, text: textOf(r), marks: marks[i] }));
        if (!opts.first) return Promise.resolve();
        return Promise.resolve(
          records.map((r) => (textOf(r).startsWith('1') ? { claimedBy: id } : undefined)),
        );
      },
    };
  }

  const inject = (...texts: string[]): void => {
    for (const text of texts) env.emu.control.injectInbound({ from: '+4917012345001', text });
  };

  it('the first taker gets every record before the other listener, which gets the marks with it', async () => {
    await loadFlow(flowWith(env.emu.url, []));
    const took: Took[] = [];
    // The plain listener registers first: the order of registration does not decide.
    const plain = reader().listen(listener('plain', took));
    const first = reader().listen(listener('ask', took, { first: true }));
    inject('1a', 'hello', '1');
    await plain.pollNow();
    await waitFor(() => took.length === 6);
    assert.deepEqual(
      took.map((t) => t.who),
      ['ask', 'ask', 'ask', 'plain', 'plain', 'plain'],
    );
    assert.deepEqual(
      took.filter((t) => t.who === 'plain').map((t) => [t.text, t.marks]),
      [
        ['1a', { claimedBy: 'ask' }],
        ['hello', undefined],
        ['1', { claimedBy: 'ask' }],
      ],
    );
    // The first taker itself gets no marks of its own.
    assert.ok(took.filter((t) => t.who === 'ask').every((t) => t.marks === undefined));
    await plain.close(true);
    await first.close(true);
  });

  it('a first taker that cannot take holds the record (and those after it) back from the others until it can', async () => {
    await loadFlow(flowWith(env.emu.url, []));
    const took: Took[] = [];
    let failing = true;
    const plain = reader().listen(listener('plain', took));
    const first = reader().listen(listener('ask', took, { first: true, fail: () => failing }));
    inject('1a', 'hello');
    await plain.pollNow();
    await plain.pollNow();
    assert.equal(took.length, 0, 'nothing handed on while the first taker fails');
    failing = false;
    await plain.pollNow();
    await waitFor(() => took.length === 4);
    assert.deepEqual(
      took.map((t) => `${t.who}:${t.text}:${t.marks?.claimedBy ?? '-'}`),
      ['ask:1a:-', 'ask:hello:-', 'plain:1a:ask', 'plain:hello:-'],
    );
    await plain.close(true);
    await first.close(true);
  });

  it('marks survive a restart: a listener that could not take gets them after it, with the marks', async () => {
    await loadFlow(flowWith(env.emu.url, []));
    const took: Took[] = [];
    let plain: ListenerHandle = reader().listen(listener('plain', took, { fail: () => true }));
    let first: ListenerHandle = reader().listen(listener('ask', took, { first: true }));
    inject('1b');
    await first.pollNow();
    await waitFor(() => took.length === 1);
    await plain.close(false);
    await first.close(false);
    // Node-RED restarts: the reader's state file keeps the record owed to "plain", with the mark.
    await helper.unload();
    await loadFlow(flowWith(env.emu.url, []));
    first = reader().listen(listener('ask', took, { first: true }));
    plain = reader().listen(listener('plain', took));
    await plain.pollNow();
    await waitFor(() => took.length === 2);
    assert.deepEqual(took[1], { who: 'plain', text: '1b', marks: { claimedBy: 'ask' } });
    await plain.close(true);
    await first.close(true);
  });

  it('a first taker away longer than the grace no longer holds the others back (they get it unmarked)', async () => {
    await loadFlow(flowWith(env.emu.url, []));
    const took: Took[] = [];
    const first = reader().listen(listener('ask', took, { first: true }));
    const plain = reader().listen(listener('plain', took));
    await plain.pollNow();
    // The ask nodes stop (a redeploy), without being deleted: what is read meanwhile waits for them...
    await first.close(false);
    inject('1c');
    await plain.pollNow();
    assert.equal(took.length, 0, 'held back while the first taker may come back');
    // ...but not for ever: two minutes later the others get it.
    const realNow = Date.now;
    Date.now = () => realNow() + 120_000;
    try {
      await plain.pollNow();
      await waitFor(() => took.length === 1);
    } finally {
      Date.now = realNow;
    }
    assert.deepEqual(took, [{ who: 'plain', text: '1c', marks: undefined }]);
    await plain.close(true);
  });
});
