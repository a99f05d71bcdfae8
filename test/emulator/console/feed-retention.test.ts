import assert from 'node:assert/strict';
import { startEmulator, type GatewayState, type RunningEmulator } from '../../../src/emulator';
import { sendSms } from '../state/helpers';

describe('console feed with bounded job retention', () => {
  let emu: RunningEmulator<GatewayState> | undefined;
  afterEach(async () => {
    await emu?.close();
    emu = undefined;
  });

  it('forgets the jobs the emulator forgot, so its memory stays bounded in a long-running sandbox', async () => {
    emu = (await startEmulator({ maxJobs: 10, balance: 1e6 })) as RunningEmulator<GatewayState>;
    const feed = emu.sandboxConsole!.feed;
    const seen = (): number => (feed as unknown as { jobSeen: Map<number, unknown> }).jobSeen.size;
    // Enough balance for every send, so every job finishes and may be forgotten.
    for (let i = 0; i < 1000; i++) {
      sendSms(emu.state, { Caption: `c${i}`, SMSText: `t${i}` });
      emu.state.finishJobs();
      feed.check();
    }
    feed.check();
    assert.ok(emu.state.jobs().length <= 11, `the emulator keeps ${emu.state.jobs().length} jobs`);
    assert.ok(seen() <= emu.state.jobs().length + 500, `the feed remembers ${seen()} jobs`);
  });
});
