/**
 * `npm start` as a user runs it, on free ports with a temporary sandbox directory:
 *  - its Node-RED is a release (the version in its log has no `-git`) and loads this package and the core nodes
 *    only, not the repository's devDependencies (node-red-contrib-soap);
 *  - lines written into its stdin through a pipe are published to the MQTT example's topic;
 *  - the emulator killed: named with its signal, Node-RED and the broker keep running, "emulator" starts it again;
 *  - Ctrl-C (SIGINT) stops everything.
 * The first run installs Node-RED into .cache/ (~20 s from npm's cache).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectAsync, type MqttClient } from 'mqtt';
import { PKG, ROOT } from '../../scripts/lib/package';
import { freePort } from '../../scripts/lib/proc';

const TOPIC = 'home/freezer/temperature';

describe('npm start: the sandbox', function () {
  this.timeout(300_000);
  let sandbox: ChildProcessWithoutNullStreams;
  let out = '';
  let userDir: string;
  let nrUrl: string;
  let emulatorPort: number;
  let mqttPort: number;
  let mqtt: MqttClient | undefined;
  const waiters = new Set<() => void>();

  /** Resolves with the first match of `re` in the sandbox's output after `from`. */
  const waitFor = (re: RegExp, ms: number, from = 0): Promise<RegExpMatchArray> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const m = out.slice(from).match(re);
        if (m) {
          done();
          resolve(m);
        } else if (sandbox.exitCode !== null || sandbox.signalCode !== null) {
          done();
          reject(new Error(`the sandbox ended before printing ${re}:\n${out.slice(-3000)}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no ${re} within ${ms} ms:\n${out.slice(-3000)}`));
      }, ms);
      const done = (): void => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });

  before(async () => {
    userDir = mkdtempSync(join(tmpdir(), 'smsgw-sandbox-e2e-'));
    const nrPort = await freePort();
    emulatorPort = await freePort();
    mqttPort = await freePort();
    nrUrl = `http://127.0.0.1:${nrPort}`;
    const env: NodeJS.ProcessEnv = { ...process.env, SMSGW_SKIP_BUILD: '1' };
    delete env.NODE_OPTIONS;
    sandbox = spawn(
      process.execPath,
      [
        '-r',
        'tsx/cjs',
        'scripts/sandbox.ts',
        '--port',
        String(nrPort),
        '--emulator-port',
        String(emulatorPort),
        '--mqtt-port',
        String(mqttPort),
        '--user-dir',
        userDir,
      ],
      { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    const onData = (c: Buffer): void => {
      out += c.toString('utf8');
      for (const w of [...waiters]) w();
    };
    sandbox.stdout.on('data', onData);
    sandbox.stderr.on('data', onData);
    sandbox.on('exit', () => [...waiters].forEach((w) => w()));
    await waitFor(/Press Ctrl-C to stop them all\./, 280_000);
  });

  after(async () => {
    await mqtt?.endAsync();
    if (sandbox && sandbox.exitCode === null && sandbox.signalCode === null) {
      const ended = new Promise((r) => sandbox.once('exit', r));
      sandbox.kill('SIGINT');
      const timer = setTimeout(() => sandbox.kill('SIGKILL'), 20_000);
      await ended;
      clearTimeout(timer);
    }
    rmSync(userDir, { recursive: true, force: true });
  });

  it('runs a Node-RED release that loads this package and the core nodes only', async () => {
    const version = /\[node-red\] .*Node-RED version: (v\S+)/.exec(out)?.[1];
    assert.ok(version, 'Node-RED printed its version');
    assert.match(version, /^v\d+\.\d+\.\d+$/, `a release, not a git checkout: ${version}`);
    const res = await fetch(`${nrUrl}/nodes`, { headers: { Accept: 'application/json' } });
    const modules = new Set(((await res.json()) as { module: string }[]).map((s) => s.module));
    assert.deepEqual([...modules].sort(), ['node-red', PKG.name].sort());
    assert.doesNotMatch(out, /soap request/);
    // "ready" only once the example flows listen: a reading typed at once is heard
    assert.doesNotMatch(out, /no flow has subscribed/);
  });

  it('publishes lines written into its stdin through a pipe', async () => {
    assert.match(out, /each line on stdin is published to home\/freezer\/temperature/, 'the hint for a pipe');
    mqtt = await connectAsync(`mqtt://127.0.0.1:${mqttPort}`, { reconnectPeriod: 0 });
    await mqtt.subscribeAsync(TOPIC);
    const got = new Promise<string>((resolve) =>
      mqtt?.once('message', (_t, payload) => resolve(payload.toString())),
    );
    const from = out.length;
    sandbox.stdin.write('-7.5\n');
    assert.equal(await got, '-7.5');
    await waitFor(/\[sandbox\] published -7\.5 to home\/freezer\/temperature/, 10_000, from);
  });

  // The tour's steps 5 and 6 are independent: each freezer tab watches a sensor of its own, so a reading typed for
  // step 5 sends step 5's one SMS and asks nobody, and one for step 6 asks without a second alarm SMS.
  it('a reading for step 5 sends one alarm SMS; one for step 6 asks the on-call list and sends no alarm SMS', async () => {
    const texts = async (): Promise<string[]> => {
      const res = await fetch(`http://127.0.0.1:${emulatorPort}/_emulator/state`);
      const state = (await res.json()) as { accounts: { jobs: { id: number; text: string }[] }[] };
      return state.accounts
        .flatMap((a) => a.jobs)
        .sort((a, b) => a.id - b.id)
        .map((j) => j.text);
    };
    const until = async (what: string, ok: (t: string[]) => boolean): Promise<string[]> => {
      for (let i = 0; i < 150; i++) {
        const t = await texts();
        if (ok(t)) return t;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`${what}: ${JSON.stringify(await texts())}`);
    };
    const alarms = (t: string[]): string[] => t.filter((x) => x.startsWith('Freezer too warm'));
    // The test before published -7.5 for step 5's freezer: its tab's one alarm, and no question.
    await until('step 5 sends its alarm', (t) => alarms(t).length > 0);
    await new Promise((r) => setTimeout(r, 1500));
    const afterStep5 = alarms(await texts());
    assert.deepEqual(afterStep5, ['Freezer too warm: -7.5 C (alarm above -12 C)']);
    sandbox.stdin.write('home/chest-freezer/temperature -18\nhome/chest-freezer/temperature -9\n');
    await until('step 6 asks', (t) => alarms(t).length > 1);
    await new Promise((r) => setTimeout(r, 1500));
    const afterStep6 = alarms(await texts());
    assert.equal(afterStep6.length, 2, JSON.stringify(afterStep6));
    assert.match(
      afterStep6[1]!,
      /^Freezer too warm: -9 C \(alarm above -12 C\)\nReply 1a=ok 2a=busy 3a=done$/,
    );
  });

  it('keeps Node-RED and the broker when the emulator dies, and "emulator" starts it again', async () => {
    const pid = Number(/gateway emulator started \(pid (\d+)\)/.exec(out)?.[1]);
    assert.ok(pid > 0, 'the sandbox named the emulator pid');
    const from = out.length;
    process.kill(pid, 'SIGKILL');
    await waitFor(
      new RegExp(
        `the gateway emulator \\(pid ${pid}\\) was killed by SIGKILL; Node-RED and the MQTT broker keep running`,
      ),
      15_000,
      from,
    );
    await waitFor(
      /start it again: type "emulator" and Enter here \(or run: node bin\/smsgw-emulator\.js/,
      5_000,
      from,
    );
    // nothing else stopped
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(sandbox.exitCode, null, out.slice(from));
    assert.equal((await fetch(`${nrUrl}/settings`)).status, 200, 'Node-RED answers');
    const probe = await connectAsync(`mqtt://127.0.0.1:${mqttPort}`, { reconnectPeriod: 0 });
    await probe.endAsync();
    await assert.rejects(fetch(`http://127.0.0.1:${emulatorPort}/_emulator/health`), 'the emulator is gone');

    const again = out.length;
    sandbox.stdin.write('emulator\n');
    const m = await waitFor(/gateway emulator started \(pid (\d+)\): (http:\S+)/, 30_000, again);
    assert.equal(m[2], `http://127.0.0.1:${emulatorPort}`, 'on the same port');
    assert.equal((await fetch(`http://127.0.0.1:${emulatorPort}/_emulator/health`)).status, 200);
  });

  it('stops everything on Ctrl-C', async () => {
    const ended = new Promise<number | null>((r) => sandbox.once('exit', (code) => r(code)));
    sandbox.kill('SIGINT');
    assert.equal(await ended, 0);
    await assert.rejects(fetch(`${nrUrl}/settings`), 'Node-RED stopped');
    await assert.rejects(fetch(`http://127.0.0.1:${emulatorPort}/_emulator/health`), 'the emulator stopped');
  });
});
