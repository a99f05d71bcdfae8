import { strict as assert } from 'node:assert';
import { CliUsageError, main, parseCliArgs } from '../../../src/emulator/cli';
import { http } from './helpers/http';

describe('emulator wire: CLI', () => {
  it('parses every flag, both --flag value and --flag=value', () => {
    const { options, help } = parseCliArgs([
      '--host=127.0.0.1',
      '--port',
      '0',
      '--user',
      'alice',
      '--password=s3cret',
      '--balance',
      '12.5',
      '--gateway-ns',
      'urn:gw/',
      '--legacy-ns=urn:legacy/',
      '--customer-path',
      '/gw/Kunde.asmx',
      '--state',
      '/tmp/x.json',
      '--no-get',
      '--verbose-faults',
      '--no-console',
    ]);
    assert.equal(help, false);
    assert.deepEqual(options, {
      host: '127.0.0.1',
      port: 0,
      user: 'alice',
      password: 's3cret',
      balance: 12.5,
      gatewayNamespace: 'urn:gw/',
      legacyNamespace: 'urn:legacy/',
      customerPath: '/gw/Kunde.asmx',
      stateFile: '/tmp/x.json',
      enableGet: false,
      verboseFaults: true,
      console: false,
    });
    assert.deepEqual(parseCliArgs([]).options, { host: '127.0.0.1', port: 8080 });
    assert.equal(parseCliArgs(['--help']).help, true);
  });

  it('rejects unknown flags and bad values', () => {
    for (const argv of [
      ['--nope'],
      ['--port', 'x'],
      ['--port', '70000'],
      ['--balance', 'lots'],
      ['--user'],
      ['--customer-path', 'x.asmx'],
    ]) {
      assert.throws(() => parseCliArgs(argv), CliUsageError, argv.join(' '));
    }
  });

  it('prints exactly one "listening on" line and serves on the chosen options', async () => {
    const out: string[] = [];
    const emu = await main(
      ['--port', '0', '--password', 'pw', '--customer-path', '/gw/Kunde.asmx'],
      { out: (t) => out.push(t), err: (t) => out.push(t) },
      false,
    );
    assert.ok(emu);
    try {
      assert.deepEqual(out, [`listening on http://127.0.0.1:${emu.port}\n`]);
      const res = await http(emu.url, 'GET', '/gw/Kunde.asmx/GetCustomerList?User=demo&Password=pw');
      assert.equal(res.status, 200, res.body);
      assert.match(res.body, /<StatusCode>Ok<\/StatusCode>/);
    } finally {
      await emu.close();
    }
  });

  it('--help prints the usage and starts nothing', async () => {
    const out: string[] = [];
    assert.equal(
      await main(['--help'], { out: (t) => out.push(t), err: (t) => out.push(t) }, false),
      undefined,
    );
    assert.match(out.join(''), /^Usage: smsgw-emulator/);
  });
});
