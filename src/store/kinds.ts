/**
 * Every kind of state this package keeps across a restart. A store names its kind when it is made; the fault
 * suite (test/store/conformance.test.ts) runs the same faults against each kind listed here and fails when a
 * kind has no case there, so a new kind of state cannot come in without being tried against disk faults.
 */
export const STORE_KINDS = [
  /** The outbox's journal of accepted messages (`smsgw-outbox/<config>.jsonl`). */
  'outbox',
  /** The config node's reader of a destructive queue: what it read and owes its listeners. */
  'reader',
  /** A trigger that reads by itself (delivery reports): its cursor and the ids it handed on. */
  'cursor',
  /** A trigger listening to its config's reader: the keys it handed on. */
  'listener',
  /** The send nodes' delivery tracker: tracked jobs and their reports. */
  'delivery',
  /** The ask nodes' open questions of one configuration. */
  'ask',
  /** A heartbeat node's watched sources and the alarms it emitted. */
  'heartbeat',
  /** The spending guard's counts. */
  'budget',
  /** The pacing per number: what each number was sent and reserved within the longest window. */
  'pacing',
  /** A configuration's opt-out list: the numbers that replied STOP, the log of its changes. */
  'optout',
  /** The epoch of a configuration's Redis key space this instance last saw (coordination). */
  'keyspace',
  /** A trigger's state in a Node-RED context store the user named instead of a file. */
  'context',
] as const;

export type StoreKind = (typeof STORE_KINDS)[number];
