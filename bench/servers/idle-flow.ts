/** Prints the memory of an embedded Node-RED runtime with an empty tab or with every node type deployed (idle). */
import { startChild, sleep, USER, PASSWORD } from '../lib';
import { everyNodeType, startRuntime } from '../embedded';

async function main(): Promise<void> {
  const emu = await startChild('emulator.ts', { user: USER, password: PASSWORD, console: false });
  const rt = await startRuntime();
  await rt.deploy(emu.url, process.argv[2] === 'every' ? everyNodeType(60) : []);
  await sleep(1500); // first polls after deploy settle
  const gc = (globalThis as { gc?: () => void }).gc!;
  gc();
  gc();
  const m = process.memoryUsage();
  await rt.stop();
  await emu.stop();
  console.log(JSON.stringify({ rss: m.rss, heap: m.heapUsed }));
  process.exit(0);
}

void main();
