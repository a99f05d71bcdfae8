/**
 * A delivery-report source for the anchor benchmark: answers every SOAP 1.1 POST with a QueryReceivedDLR page.
 * After an `arm` command the next request gets a full page of `records` reports with new Ids and later dates
 * (a trigger hands them all on); every other request gets an empty page (the trigger's follow-up of a full
 * page). Nothing is parsed. Config: { records: number }.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dlrResponse } from '../fixtures';
import { announce, config } from './serve';

const { records } = config<{ records: number }>();
const head = (body: Buffer) => ({ 'Content-Type': 'text/xml; charset=utf-8', 'Content-Length': body.length });
const empty = Buffer.from(dlrResponse(0), 'utf8');
let armed: Buffer | undefined;
let pages = 0;
const start = Date.now() - 3_600_000;

const server = createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    const body = armed ?? empty;
    armed = undefined;
    res.writeHead(200, head(body));
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () =>
  announce(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, (m) => {
    if (m.cmd !== 'arm') return undefined;
    pages++;
    // One page per poll interval: each page dated two minutes after the last, so a trigger's overlap window
    // (one minute) holds one page's Ids, as for a user who gets `records` reports per interval.
    armed = Buffer.from(
      dlrResponse(records, { firstId: pages * 1_000_000, dateMs: start + pages * 120_000 }),
    );
    return armed.length;
  }),
);
