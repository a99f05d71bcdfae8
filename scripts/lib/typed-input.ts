/**
 * Lines on the sandbox's stdin: typed into a terminal or written into a pipe (`mosquitto`-less
 * scripts, an IDE's run console, `tail -f readings | npm start`). A reading is published to the MQTT example's
 * sensor topic; `emulator` starts the gateway emulator again after it ended.
 */
import { fstatSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { isatty } from 'node:tty';
import type { Readable } from 'node:stream';

/** The topic of the MQTT example's freezer sensor: a line without a space is published there. */
export const READINGS_TOPIC = 'home/freezer/temperature';

/**
 * Where stdin comes from: a terminal, a stream that can carry lines (pipe, socket, file), or nothing to read
 * (closed, or a device such as /dev/null that a detached start gets). Only the first two get the typing hint.
 */
export type StdinKind = 'terminal' | 'stream' | 'none';

export function stdinKind(fd = 0): StdinKind {
  try {
    if (isatty(fd)) return 'terminal';
    const st = fstatSync(fd);
    return st.isFIFO() || st.isSocket() || st.isFile() ? 'stream' : 'none';
  } catch {
    return 'none';
  }
}

/** What a line asks for. */
export type TypedLine =
  | { kind: 'publish'; topic: string; payload: string }
  | { kind: 'command'; name: 'emulator' }
  | { kind: 'empty' };

/** "-9" → the readings topic; "<topic> <payload>" as is; "emulator" → the command. */
export function parseLine(line: string): TypedLine {
  const text = line.trim();
  if (!text) return { kind: 'empty' };
  if (text === 'emulator') return { kind: 'command', name: 'emulator' };
  const space = text.indexOf(' ');
  return space < 0
    ? { kind: 'publish', topic: READINGS_TOPIC, payload: text }
    : { kind: 'publish', topic: text.slice(0, space), payload: text.slice(space + 1).trim() };
}

export interface LineHandlers {
  publish(topic: string, payload: string): void;
  command(name: 'emulator'): void;
  /** The input ended (EOF): nothing more will be read. */
  closed(): void;
}

/** Reads `input` line by line until it ends. `terminal: false` leaves Ctrl-C to the process (SIGINT). */
export function readTypedLines(input: Readable, handlers: LineHandlers): { close(): void } {
  const lines = createInterface({ input, terminal: false });
  lines.on('line', (line) => {
    const what = parseLine(line);
    if (what.kind === 'publish') handlers.publish(what.topic, what.payload);
    else if (what.kind === 'command') handlers.command(what.name);
  });
  lines.once('close', () => handlers.closed());
  return { close: () => lines.close() };
}

/** The banner's line about typing, for this kind of stdin (none where nothing would be read). */
export function typingHint(kind: StdinKind): string | undefined {
  if (kind === 'terminal')
    return `type a reading and Enter to publish it to ${READINGS_TOPIC}, or "<topic> <payload>"`;
  if (kind === 'stream')
    return `each line on stdin is published to ${READINGS_TOPIC}, or "<topic> <payload>"`;
  return undefined;
}
