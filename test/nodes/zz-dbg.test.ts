import { GatewayClient } from '../../src/client';
import { startEmulator } from '../../src/emulator';
describe('dbg', () => {
  it('x', async () => {
    const emu = await startEmulator({ port: 0 });
    const c = new GatewayClient({
      baseUrl: emu.url,
      user: 'demo',
      password: 'demo-password',
      transport: 'soap11',
    });
    console.log(await c.information.queryNewHlrJobs({ Limit: 0 }));
    const r = await c.send.sendHlr({ Caption: 'hlr', Recipient: '+4917055500001,+4917055500002' });
    console.log(r, emu.control.finishJobs());
    console.log(await c.information.queryHlrJobsByJobId({ JobID: r.JobId }));
    console.log(await c.information.queryNewHlrJobs({ Limit: 0 }));
    console.log(await c.information.queryNewHlrJobs({}));
    await c.close();
    await emu.close();
  });
});
