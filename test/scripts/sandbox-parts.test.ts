import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { RunningEmulator } from '../../scripts/lib/emulator';
import { repoNodeRedModules } from '../../scripts/lib/nodered-runtime';
import { ROOT } from '../../scripts/lib/package';
import { emulatorCommand, howItEnded, SandboxEmulator } from '../../scripts/lib/sandbox-emulator';
import {
  READINGS_TOPIC,
  parseLine,
  readTypedLines,
  typingHint,
  type StdinKind,
} from '../../scripts/lib/typed-input';

// The pieces of `npm start` that decide what the user sees when a child dies, which Node-RED modules the sandbox
// keeps out, and whether lines on stdin are read. The whole sandbox runs in test/e2e/sandbox.e2e.ts.

/** stdinKind() in a child whose stdin is `stdin`. */
function kindWith(stdin: 'pipe' | 'ignore'): Promise<StdinKind> {
  const code = `process.stdout.write(require(${JSON.stringify(join(ROOT, 'scripts/lib/typed-input.ts'))}).stdinKind())`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', 'tsx/cjs', '-e', code], {
      cwd: ROOT,
      stdio: [stdin, 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('exit', () => resolve(out.trim() as StdinKind));
    if (stdin === 'pipe') child.stdin?.end();
  });
}

describe('sandbox parts', function () {
  this.timeout(30_000);

  describe('lines on stdin', () => {
    it('a pipe is read like a terminal; /dev/null (a detached start) is not, and gets no typing hint', async () => {
      assert.equal(await kindWith('pipe'), 'stream');
      assert.equal(await kindWith('ignore'), 'none');
      assert.equal(typingHint('none'), undefined);
      assert.match(
        typingHint('stream') ?? '',
        /each line on stdin is published to home\/freezer\/temperature/,
      );
      assert.match(typingHint('terminal') ?? '', /type a reading and Enter/);
    });

    it('each line from a stream: a reading, a topic and payload, the emulator command; the end is reported', async () => {
      const input = new PassThrough();
      const seen: string[] = [];
      const closed = new Promise<void>((resolve) =>
        readTypedLines(input, {
          publish: (t, p) => seen.push(`${t}=${p}`),
          command: (n) => seen.push(`!${n}`),
          closed: resolve,
        }),
      );
      input.write('-9\n  \nhome/x 21.5\r\nemulator\n');
      input.end('-7.5'); // a last line without a line break
      await closed;
      assert.deepEqual(seen, [`${READINGS_TOPIC}=-9`, 'home/x=21.5', '!emulator', `${READINGS_TOPIC}=-7.5`]);
      assert.deepEqual(parseLine('  '), { kind: 'empty' });
    });
  });

  describe('a child that ends', () => {
    it('is named with its exit code or signal', () => {
      assert.equal(howItEnded(0, null), 'exited with code 0');
      assert.equal(howItEnded(1, null), 'exited with code 1');
      assert.equal(howItEnded(null, 'SIGKILL'), 'was killed by SIGKILL');
    });

    it('the emulator command to type elsewhere names the port and the state file, relative to where npm runs', () => {
      assert.equal(
        emulatorCommand(8080, join(ROOT, '.sandbox'), ROOT),
        'node bin/smsgw-emulator.js --host 127.0.0.1 --port 8080 --state .sandbox/emulator-state.json',
      );
    });

    it('a dead emulator is reported with how to start it again, and the command starts it on the same port', async () => {
      const userDir = mkdtempSync(join(tmpdir(), 'smsgw-sandbox-emu-'));
      const lines: string[] = [];
      let typing = true;
      const emu = new SandboxEmulator({
        userDir,
        port: 0,
        logFile: join(userDir, 'emulator.log'),
        log: (s) => lines.push(s),
        canType: () => typing,
      });
      try {
        const first = await emu.start();
        const port = new URL(first.url).port;
        assert.match(lines[0] ?? '', /^gateway emulator started \(pid \d+\): http:\/\/127\.0\.0\.1:\d+$/);
        const ended = new Promise((r) => first.proc.child.once('exit', r));
        first.proc.child.kill('SIGKILL');
        await ended;
        await new Promise((r) => setImmediate(r));
        assert.match(
          lines[1] ?? '',
          /^the gateway emulator \(pid \d+\) was killed by SIGKILL; Node-RED and the MQTT broker keep running/,
        );
        assert.match(
          lines[2] ?? '',
          /^start it again: type "emulator" and Enter here \(or run: node .*--port \d+ --state /,
        );
        assert.ok((lines[2] ?? '').includes(`--port ${port} `), 'the port it had, not 0');
        const current = (): RunningEmulator | undefined => emu.current;
        assert.equal(current(), undefined);

        await emu.command();
        const again = current();
        assert.ok(again, lines.join('\n'));
        assert.equal(new URL(again.url).port, port, 'the same port: the flows point at it');
        assert.equal((await fetch(`${again.url}/_emulator/health`)).status, 200);
        await emu.command(); // running: says where
        assert.match(lines[lines.length - 1] ?? '', /^the gateway emulator is running \(pid \d+\)/);

        // without a readable stdin only the command for another terminal is offered
        typing = false;
        const gone = new Promise((r) => again.proc.child.once('exit', r));
        again.proc.child.kill('SIGTERM');
        await gone;
        await new Promise((r) => setImmediate(r));
        assert.match(lines[lines.length - 2] ?? '', /\(pid \d+\) (exited with code 0|was killed by SIGTERM)/);
        assert.match(lines[lines.length - 1] ?? '', /^start it again in another terminal: node /);
      } finally {
        await emu.stop();
        rmSync(userDir, { recursive: true, force: true });
      }
    });
  });

  describe("the repository's own Node-RED modules", () => {
    it('are found by their package.json (scoped too), this package left out', () => {
      const root = mkdtempSync(join(tmpdir(), 'smsgw-repo-'));
      try {
        const pkg = (dir: string, json: object): void => {
          mkdirSync(join(root, 'node_modules', dir), { recursive: true });
          writeFileSync(join(root, 'node_modules', dir, 'package.json'), JSON.stringify(json));
        };
        pkg('node-red-contrib-soap', { name: 'node-red-contrib-soap', 'node-red': { nodes: {} } });
        pkg('@x/nodes', { name: '@x/nodes', 'node-red': { nodes: {} } });
        pkg('lodash', { name: 'lodash' });
        pkg('node-red', { name: 'node-red', 'node-red': './red.js' }); // a string, as in a bin: no module
        pkg('@smsgw/node-red-sms-gateway', {
          name: '@smsgw/node-red-sms-gateway',
          'node-red': { nodes: {} },
        });
        assert.deepEqual(repoNodeRedModules(root), ['@x/nodes', 'node-red-contrib-soap']);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
      assert.ok(repoNodeRedModules().includes('node-red-contrib-soap'), 'the devDependency of the benchmark');
    });
  });
});
