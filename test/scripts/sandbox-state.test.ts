import { strict as assert } from 'node:assert';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningEmulator } from '../../scripts/lib/emulator';
import { emulatorStateFile, freshUserDir, startSandboxEmulator } from '../../scripts/lib/sandbox-state';

// The sandbox (`npm start`) keeps the emulator's state beside Node-RED's userDir: the emulator process it starts
// (startSandboxEmulator: bin/smsgw-emulator.js, from dist/) continues its JobIds after a restart, and `--fresh` forgets both sides.

/** Sends one SMS over HTTP GET and returns its JobId (the sandbox's demo account). */
async function sendOne(emu: RunningEmulator, caption: string): Promise<number> {
  const q = new URLSearchParams({
    User: 'demo',
    Password: 'demo-password',
    Caption: caption,
    Sender: 'Sandbox',
    Recipient: '+4917012345678',
    SMSText: 'hi',
    SmsTyp: 'Standard',
    SendDate: '',
  });
  const res = await fetch(`${emu.url}/gateway/Send.asmx/SendSimpleSMS?${q}`);
  const body = await res.text();
  assert.match(body, /<Status>Ok<\/Status>/, body);
  return Number(/<JobId>(\d+)<\/JobId>/.exec(body)![1]);
}

async function captions(emu: RunningEmulator): Promise<string[]> {
  const state = (await (await fetch(`${emu.url}/_emulator/state`)).json()) as {
    accounts: { jobs: { caption: string }[] }[];
  };
  return state.accounts.flatMap((a) => a.jobs.map((j) => j.caption));
}

describe('sandbox: the emulator state kept beside the userDir', function () {
  this.timeout(60_000);
  let userDir: string;
  const running: RunningEmulator[] = [];
  const start = async (): Promise<RunningEmulator> => {
    const emu = await startSandboxEmulator(userDir, 0);
    running.push(emu);
    return emu;
  };
  beforeEach(() => {
    userDir = mkdtempSync(join(tmpdir(), 'smsgw-sandbox-'));
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((e) => e.proc.stop()));
    rmSync(userDir, { recursive: true, force: true });
  });

  it('after a restart JobIds continue and the earlier jobs are still there', async () => {
    const first = await start();
    const a = await sendOne(first, 'before-1');
    const b = await sendOne(first, 'before-2');
    assert.ok(b > a);
    await first.proc.stop();
    assert.ok(existsSync(emulatorStateFile(userDir)), 'saved when stopped');

    const second = await start();
    const c = await sendOne(second, 'after');
    assert.ok(c > b, `JobId ${c} after a restart must follow ${b}, never repeat an earlier one`);
    assert.deepEqual((await captions(second)).sort(), ['after', 'before-1', 'before-2']);
  });

  it('--fresh empties the userDir but for the installed package, and the emulator starts over', async () => {
    const first = await start();
    const a = await sendOne(first, 'old');
    await first.proc.stop();
    for (const f of ['flows.json', 'flows_cred.json', '.config.runtime.json', 'node-red.log', 'package.json'])
      writeFileSync(join(userDir, f), '{}');
    for (const d of ['smsgw-state', 'node_modules', '.pack']) mkdirSync(join(userDir, d));
    writeFileSync(join(userDir, 'smsgw-state', 'smsgw-dlr.n1.json'), '{}');

    assert.deepEqual(freshUserDir(userDir), [
      '.config.runtime.json',
      'emulator-state.json',
      'flows.json',
      'flows_cred.json',
      'node-red.log',
      'smsgw-state',
    ]);
    assert.deepEqual(readdirSync(userDir).sort(), ['.pack', 'node_modules', 'package.json']);

    const second = await start();
    assert.deepEqual(await captions(second), []);
    assert.equal(await sendOne(second, 'new'), a, 'a fresh emulator hands out its first JobId again');
  });

  it('a damaged state file stops the start with the --fresh hint instead of starting empty', async () => {
    writeFileSync(emulatorStateFile(userDir), '{ not json');
    await assert.rejects(startSandboxEmulator(userDir, 0), /not valid JSON[\s\S]*npm start -- --fresh/);
  });

  it('--fresh on a sandbox that does not exist yet removes nothing', () => {
    assert.deepEqual(freshUserDir(join(userDir, 'missing')), []);
  });
});
