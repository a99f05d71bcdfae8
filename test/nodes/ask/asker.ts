/**
 * The ask node the emulator tests use: numbers A then B, acknowledge "1", pass on "2", no resolve words (a node
 * saved before they existed), one round, replies read every second (the shortest), outputs to out, out2, out3. `extra` changes any field (a step of a minute where nothing waits for a step to end).
 */
import type { EmulatedJob, Env, FlowNode } from '../helpers';

export const A = '+491701110001';
export const B = '+491701110002';
export const STRANGER = '+491709999999';

export function asker(extra: Record<string, unknown> = {}): FlowNode {
  return {
    id: 'ask',
    type: 'smsgw-ask',
    gateway: 'cfg',
    question: 'payload',
    questionType: 'msg',
    numbers: `${A}, ${B}`,
    numbersType: 'str',
    wait: 1,
    waitUnit: 's',
    rounds: 1,
    ack: '1',
    pass: '2',
    tell: 'none',
    interval: 1, // the shortest (the triggers poll at most once a second)
    wires: [['out'], ['out2'], ['out3']],
    ...extra,
  };
}

/** Every job the emulator holds. */
export function jobs(env: Env): EmulatedJob[] {
  const snap = env.emu.control.snapshot() as { accounts: { jobs: EmulatedJob[] }[] };
  return snap.accounts.flatMap((a) => a.jobs);
}

/** The jobs to one number, oldest first. */
export const jobsTo = (env: Env, n: string): EmulatedJob[] =>
  jobs(env)
    .filter((j) => j.recipients.includes(n))
    .sort((a, b) => a.id - b.id);

/** A reply as the console's phone sends it: with the JobId of the newest message to that number. */
export function reply(env: Env, from: string, text: string): void {
  const last = jobsTo(env, from).at(-1);
  env.emu.control.injectInbound({ from, text, ...(last ? { jobId: last.id } : {}) });
}
