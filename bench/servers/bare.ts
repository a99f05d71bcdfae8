/** A bare node:http server answering a fixed SendSMS body after reading the request: the limit of benchmark 5. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { announce, config } from './serve';

const { body, type } = config<{ body: string; type: string }>();
const bytes = Buffer.from(body, 'utf8');
const server = createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    res.writeHead(200, { 'Content-Type': type, 'Content-Length': bytes.length, 'Cache-Control': 'private' });
    res.end(bytes);
  });
});
server.listen(0, '127.0.0.1', () => announce(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
