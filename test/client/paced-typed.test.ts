/**
 * A large typed answer is decoded a slice per turn of the event loop: a 5,000-record QueryReceivedDLR page (2.2 MB)
 * that waits whole in the socket was handed to the decoder in one turn, ~30 reads of 64 KiB, and nothing else of
 * the process ran meanwhile. Paced, each turn decodes one read; what the call resolves with is the same.
 */
import assert from 'node:assert/strict';
import { GatewayClient } from '../../src/client';
import { TYPED_BYTES_PER_TURN } from '../../src/client/client';
import { DEFAULT_NAMESPACES } from '../../src/catalogue';
import { FullSocket, dlrPage } from './fixtures/full-socket';

const RECORDS = 5000;
const PAGE = dlrPage(RECORDS, 1, Date.parse('2026-11-22T09:00:00Z'), DEFAULT_NAMESPACES.gateway);

const clientOn = (socket: FullSocket): GatewayClient =>
  new GatewayClient({
    baseUrl: 'http://gateway.invalid',
    user: 'u',
    password: 'pw',
    gatewayNamespace: DEFAULT_NAMESPACES.gateway,
    retries: 0,
    dispatcher: socket.dispatcher,
  });

describe('client: a large typed answer is decoded a slice per turn of the event loop', () => {
  for (const chunked of [false, true]) {
    it(`a 5,000-report page waiting whole in the socket (${chunked ? 'chunked' : 'Content-Length'})`, async () => {
      const socket = new FullSocket(() => PAGE, chunked);
      const client = clientOn(socket);
      socket.watch();
      let reports: Awaited<ReturnType<typeof client.information.queryReceivedDlr>>;
      try {
        reports = await client.information.queryReceivedDlr({ StartDate: new Date(0), Limit: RECORDS });
      } finally {
        socket.stop();
        await client.close();
      }
      // Every report, in the gateway's order, as decoded unpaced.
      assert.equal(reports.length, RECORDS);
      assert.deepEqual(
        reports.map((r) => r.Id),
        Array.from({ length: RECORDS }, (_, i) => i + 1),
      );
      assert.equal(reports[4999]!.MsgText, 'Delivered 4999; T-Mobile DE, 1/1');
      assert.equal(reports[4999]!.Caption, 'Campaign Nov/9 — Grüße');
      // One read decoded per turn (and one more held, paused, for the next); unpaced it was all 2.2 MB in one.
      assert.ok(
        socket.most <= 2 * TYPED_BYTES_PER_TURN,
        `${socket.most} bytes handed over in one turn (budget ${TYPED_BYTES_PER_TURN})`,
      );
      const busy = socket.turns.filter((n) => n > 0).length;
      assert.ok(busy >= Math.floor(PAGE.length / TYPED_BYTES_PER_TURN), `the page in ${busy} turns`);
    });
  }
});
