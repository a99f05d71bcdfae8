/**
 * What a trigger says about recoveries after a lost answer (collected.ts): each recovery read that found something
 * is logged with the count so far; a recovery read that fails is warned about once (it is tried again at every
 * poll); one given up, and an answer lost with recovery switched off, are warned about too.
 */
import type { Node, NodeAPI } from 'node-red';
import { toGatewayError } from '../common/errors';
import { sharedKey } from '../common/status';
import type { CollectedRead } from './collected';

export interface QueueOperations {
  collect: string;
  recover: string;
}

export function recoveryReporter(
  RED: NodeAPI,
  node: Node,
): (read: CollectedRead<unknown>, ops: QueueOperations) => void {
  let recoveries = 0;
  let found = 0;
  let warnedFailure = false;
  let warnedOff = false;
  return (read, ops) => {
    if (read.recoveries > 0) {
      recoveries += read.recoveries;
      found += read.recovered;
      node.log(
        RED._(sharedKey('log.recovered'), {
          count: read.recovered,
          operation: ops.recover,
          lost: ops.collect,
          recoveries,
          found,
        }),
      );
    }
    if (read.recoveryError !== undefined && !warnedFailure && !read.gaveUp) {
      warnedFailure = true;
      const message = toGatewayError(read.recoveryError).message;
      node.warn(
        RED._(sharedKey('errors.recoveryFailed'), { operation: ops.recover, lost: ops.collect, message }),
      );
    }
    if (read.gaveUp)
      node.warn(RED._(sharedKey('errors.recoveryGaveUp'), { operation: ops.recover, lost: ops.collect }));
    if (read.lostWithoutRecovery && !warnedOff) {
      warnedOff = true;
      node.warn(RED._(sharedKey('errors.recoveryOff'), { lost: ops.collect }));
    }
  };
}
