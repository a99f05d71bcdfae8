import { strict as assert } from 'node:assert';
import { parseCliArgs } from '../../../src/emulator/cli';
import { startEmulator, type RunningEmulator } from '../../../src/emulator';
import { http } from './helpers/http';

// The control API refuses foreign Host headers (DNS rebinding); --allow-host names extra ones, e.g. a container name.
describe('emulator: allowed host names for the control API', () => {
  let emu: RunningEmulator;
  before(async () => {
    emu = await startEmulator({ allowedHosts: ['gateway-emulator'] });
  });
  after(() => emu.close());

  const health = (host: string) => http(emu.url, 'GET', '/_emulator/health', { Host: host });

  it('accepts a name it was told about and still refuses others', async () => {
    assert.equal((await health(`gateway-emulator:${emu.port}`)).status, 200);
    assert.equal((await health(`evil.example:${emu.port}`)).status, 403);
  });

  it('limits the connections served at once by default, and --max-connections changes it', async () => {
    const server = (emu as unknown as { server: { maxConnections: number } }).server;
    assert.equal(server.maxConnections, 256);
    assert.equal(parseCliArgs(['--max-connections', '32']).options.maxConnections, 32);
    assert.throws(() => parseCliArgs(['--max-connections', '0']));
  });

  it('takes the names from repeated --allow-host flags', () => {
    const { options } = parseCliArgs(['--allow-host', 'Emu', '--allow-host=box.local']);
    assert.deepEqual(options.allowedHosts, ['emu', 'box.local']);
  });
});
