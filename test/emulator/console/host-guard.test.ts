import { strict as assert } from 'node:assert';
import { allowedHost, allowedOrigin, parseHostHeader } from '../../../src/emulator/console';

// The DNS-rebinding guard: only Host values that name this emulator pass.

describe('console: Host and Origin guard', () => {
  const loop = { host: '127.0.0.1', port: 8080 };

  it('parses host headers with and without port, IPv6 in brackets', () => {
    assert.deepEqual(parseHostHeader('127.0.0.1:8080'), { name: '127.0.0.1', port: 8080 });
    assert.deepEqual(parseHostHeader('LocalHost'), { name: 'localhost', port: 80 });
    assert.deepEqual(parseHostHeader('[::1]:9'), { name: '::1', port: 9 });
    assert.equal(parseHostHeader('a:b:c'), undefined);
    assert.equal(parseHostHeader('evil.example:99999'), undefined);
    assert.equal(parseHostHeader('user@127.0.0.1:8080'), undefined);
  });

  it('accepts the bound address and localhost on the bound port', () => {
    assert.equal(allowedHost('127.0.0.1:8080', loop), true);
    assert.equal(allowedHost('localhost:8080', loop), true);
    assert.equal(allowedHost('LOCALHOST:8080', loop), true);
  });

  it('refuses other names, other ports, a missing header', () => {
    assert.equal(allowedHost('rebind.attacker.example:8080', loop), false);
    assert.equal(allowedHost('127.0.0.1.nip.io:8080', loop), false);
    assert.equal(allowedHost('127.0.0.1:8081', loop), false);
    assert.equal(allowedHost('127.0.0.1', loop), false);
    assert.equal(allowedHost('10.0.0.5:8080', loop), false);
    assert.equal(allowedHost(undefined, loop), false);
    assert.equal(allowedHost('', loop), false);
  });

  it('on a wildcard bind accepts IP literals and localhost on any port, still no other names', () => {
    const any = { host: '0.0.0.0', port: 8080 };
    assert.equal(allowedHost('192.168.1.20:8080', any), true);
    assert.equal(allowedHost('[fe80::1]:9000', any), true);
    assert.equal(allowedHost('localhost', any), true);
    assert.equal(allowedHost('emulator.attacker.example:8080', any), false);
  });

  it('accepts a named bind by its name', () => {
    assert.equal(allowedHost('sandbox.local:7000', { host: 'sandbox.local', port: 7000 }), true);
    assert.equal(allowedHost('other.local:7000', { host: 'sandbox.local', port: 7000 }), false);
  });

  it('accepts names listed in allowedHosts on any port, and only those', () => {
    const bind = { host: '0.0.0.0', port: 8080, allowedHosts: ['Emulator'] };
    assert.equal(allowedHost('emulator:18080', bind), true);
    assert.equal(allowedHost('emulator.attacker.example:8080', bind), false);
    assert.equal(allowedOrigin('http://emulator:8080', bind), true);
  });

  it('Origin: absent is fine (curl, Node), our own origin too, any other or "null" is not', () => {
    assert.equal(allowedOrigin(undefined, loop), true);
    assert.equal(allowedOrigin('http://127.0.0.1:8080', loop), true);
    assert.equal(allowedOrigin('http://localhost:8080', loop), true);
    assert.equal(allowedOrigin('https://127.0.0.1:8080', loop), false);
    assert.equal(allowedOrigin('http://attacker.example', loop), false);
    assert.equal(allowedOrigin('null', loop), false);
  });
});
