/**
 * The ask node the emulator tests use: numbers A then B, acknowledge "1", pass on "2", no resolve words (a node
 * saved before they existed), one round, replies read every second (the shortest), outputs to out, out2, out3. `extra` changes any field (a step of a minute where nothing waits for a step to end).
 */
import type { FlowNode } from '../helpers';

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
