/**
 * The Redis client is an optional dependency: without it installed, the package loads and every default path
 * works; with "Coordinate instances through Redis" on, the pollers say what is missing and do not poll.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { runStatus } from '../../scripts/lib/proc';

describe('the Redis client is optional', function () {
  this.timeout(60_000);

  it('loads and runs the default path with @redis/client missing; the setting on refuses clearly', async () => {
    const { output } = await runStatus(
      process.execPath,
      ['-r', 'tsx/cjs', join(__dirname, 'fixtures', 'without-redis.ts')],
      {
        cwd: join(__dirname, '..', '..'),
      },
    );
    const line = output.split('\n').find((l) => l.startsWith('RESULT '));
    assert.ok(line, output);
    const r = JSON.parse(line.slice(7)) as Record<string, unknown>;
    assert.equal(r.failed, undefined, String(r.failed));
    assert.equal(r.inbound, 'hello', 'the inbound trigger polled without coordination');
    assert.equal(r.sent, 'number', 'the send node sent');
    assert.equal(r.loaded, 0, 'no @redis module was loaded');
    assert.equal(r.coordinatedEmitted, 0, 'with the setting on and no client, nothing is polled');
    assert.match(String(r.configError), /needs the optional package @redis\/client/);
    assert.ok(
      (r.coordinatedStatus as string[]).some((t) => /redisDown|Redis/.test(String(t))),
      JSON.stringify(r.coordinatedStatus),
    );
  });
});
