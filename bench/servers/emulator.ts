/** The emulator in its own process, for the benchmarks. Config: EmulatorOptions as JSON in argv[2]. */
import type { EmulatorOptions } from '../../src/emulator';
import { emulator } from '../pkg';
import { announce, config } from './serve';

const { keepAliveMs, ...options } = config<EmulatorOptions & { keepAliveMs?: number }>();
void emulator.startEmulator(options).then((emu) => {
  // keepAliveMs: as in stub.ts (the anchor).
  if (keepAliveMs) emu.server.keepAliveTimeout = keepAliveMs;
  const byPath = new Map<string, number>();
  emu.server.on('request', (req: { url?: string }) => {
    const path = (req.url ?? '').split('?')[0]!;
    byPath.set(path, (byPath.get(path) ?? 0) + 1);
  });
  announce(emu.url, (m) => (m.cmd === 'requests' ? Object.fromEntries(byPath) : undefined));
});
