/**
 * The delivery-reports trigger's way from a 5,000-report page (2.2 MB) to its 5,000th msg leaves the event loop
 * free between small steps: the answer is decoded a read per turn (when it waits whole in the socket it was all
 * decoded in one turn, the trigger's longest event-loop block), and the msgs go out a batch per turn. Counted in
 * turns of the event loop and bytes, never in time; the flow gets the same msgs in the same order, and the cursor
 * is saved.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import type { Node } from 'node-red';
import { GatewayClient } from '../../src/client';
import { TYPED_BYTES_PER_TURN } from '../../src/client/client';
import { EMIT_BATCH } from '../../src/nodes/polling/emit';
import { readStateFile } from '../store/read';
import { FullSocket, dlrPage } from '../client/fixtures/full-socket';
import { collect, flowWith, helper, loadFlow, send, startEnv, stopEnv, waitFor, type Env } from './helpers';

const NS = 'urn:test';
const RECORDS = 5000;

describe('smsgw-dlr: a 5,000-report page reaches the flow in small steps (counted in turns)', function () {
  this.timeout(60_000);
  let env: Env;
  before(async () => {
    env = await startEnv();
  });
  after(() => stopEnv(env));

  it('decodes a read per turn and sends a batch per turn; every report once, in order, cursor saved', async () => {
    const page = dlrPage(RECORDS, 1, Date.now() - 10 * 60_000, NS);
    const empty = dlrPage(0, 1, 0, NS);
    // The first poll gets the full page, its follow-up (a full page is followed at once) an empty one.
    const socket = new FullSocket((n) => (n === 0 ? page : empty));
    await loadFlow(
      flowWith('http://gateway.invalid', [
        {
          id: 'p1',
          type: 'smsgw-dlr',
          gateway: 'cfg',
          inputs: 1,
          lookback: 60,
          wires: [['out']],
        },
      ]),
    );
    const cfg = helper.getNode('cfg') as unknown as {
      client: GatewayClient | undefined;
      reliability: { flow: ConstructorParameters<typeof GatewayClient>[0]['flowControl'] };
    };
    cfg.client = new GatewayClient({
      baseUrl: 'http://gateway.invalid',
      user: 'demo',
      password: 'demo-password',
      gatewayNamespace: NS,
      retries: 0,
      flowControl: cfg.reliability.flow,
      dispatcher: socket.dispatcher,
    });
    const out = collect('out');
    // The turn each msg arrived in.
    const arrived: number[] = [];
    (helper.getNode('out') as Node).on('input', () => arrived.push(socket.turns.length));
    socket.watch();
    try {
      send('p1', { payload: 'poll' });
      await waitFor(() => out.messages.length >= RECORDS, 50_000);
    } finally {
      socket.stop();
      out.stop();
    }
    assert.equal(out.messages.length, RECORDS);
    assert.deepEqual(
      out.messages.map((m) => (m.payload as { Id: number }).Id),
      Array.from({ length: RECORDS }, (_, i) => i + 1),
    );
    assert.equal(socket.requests, 2, 'the page and its follow-up');
    // The answer: one read decoded per turn (one more held for the next); it was all 2.2 MB in one turn.
    assert.ok(
      socket.most <= 2 * TYPED_BYTES_PER_TURN,
      `${socket.most} bytes handed over in one turn (budget ${TYPED_BYTES_PER_TURN})`,
    );
    assert.ok(
      socket.turns.filter((n) => n > 0).length >= Math.floor(page.length / TYPED_BYTES_PER_TURN),
      'the page read across turns',
    );
    // The msgs: at most a batch delivered per turn.
    const perTurn = new Map<number, number>();
    for (const t of arrived) perTurn.set(t, (perTurn.get(t) ?? 0) + 1);
    assert.ok(Math.max(...perTurn.values()) <= EMIT_BATCH, 'msgs delivered in one turn');
    // The cursor is saved after the msgs were handed on.
    const file = path.join(env.userDir, 'smsgw-state', 'smsgw-dlr.p1.json');
    await waitFor(() => {
      try {
        return typeof (readStateFile(file) as { cursor?: unknown }).cursor === 'string';
      } catch {
        return false;
      }
    });
  });
});
