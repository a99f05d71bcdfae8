/**
 * The "Output" property of the action nodes: the msg property that receives the node's result, msg.payload
 * unless the dialog says otherwise (as the core json, xml and html nodes do). The result is written with
 * RED.util.setMessageProperty(msg, output, value, true); everything else on the msg stays as it came,
 * msg.payload included when the Output is another property. A node saved before the property existed writes
 * msg.payload.
 */
import type { NodeAPI, NodeMessage } from 'node-red';
import { GatewayError } from '../../errors';

export const DEFAULT_OUTPUT = 'payload';

/** The part of a node's settings this file reads. */
export interface OutputDef {
  output?: unknown;
}

export interface NodeOutput {
  /** The property as set in the dialog, without a leading "msg." (default "payload"). */
  readonly property: string;
  /**
   * Throws a VALIDATION GatewayError when the result could not be written to this msg (msg.result.sms asked
   * for while msg.result is a text), a CONFIG one when the property is no valid msg property. Called before
   * the node sends anything: an SMS whose result cannot be handed on is not sent.
   */
  check(msg: NodeMessage): void;
  /** Writes the result onto the msg; false if Node-RED could not (check() says why beforehand). */
  write(msg: NodeMessage, value: unknown): boolean;
}

/** A property with no dots or brackets: nothing to walk, nothing that can be in the way. */
const PLAIN_NAME = /^[A-Za-z_$][\w$]*$/;

type PathPart = string | number;

/** The Output of a node, from its settings (blank or missing = msg.payload). */
export function nodeOutput(RED: NodeAPI, def: OutputDef): NodeOutput {
  const raw = typeof def.output === 'string' ? def.output.trim() : '';
  const property = raw.replace(/^msg\./, '') || DEFAULT_OUTPUT;
  const plain = PLAIN_NAME.test(property);
  // A property that does not parse is refused for every msg, before anything is sent.
  let invalid: GatewayError | undefined;
  if (!plain) {
    try {
      RED.util.normalisePropertyExpression(property);
    } catch (err) {
      invalid = new GatewayError(
        'CONFIG',
        `Output "msg.${property}" is not a msg property: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }

  return {
    property,
    check(msg) {
      if (invalid) throw invalid;
      if (plain) return;
      // With the msg: a property such as result[msg.topic] names a different place per msg.
      const parts = RED.util.normalisePropertyExpression(property, msg) as PathPart[];
      let obj: unknown = msg;
      for (let i = 0; i < parts.length - 1; i++) {
        const key = parts[i]!;
        const container = obj as Record<PathPart, unknown>;
        const present =
          typeof key === 'number' && Array.isArray(obj)
            ? container[key] !== undefined
            : Object.hasOwn(container, key);
        // setMessageProperty creates what is missing from here on.
        if (!present) return;
        const next = container[key];
        if ((typeof next !== 'object' && typeof next !== 'function') || next === null) {
          const where = parts
            .slice(0, i + 1)
            .map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`))
            .join('');
          throw new GatewayError(
            'VALIDATION',
            `cannot write the result to msg.${property}: msg${where} is ` +
              `${next === null ? 'null' : typeof next}, not an object`,
          );
        }
        obj = next;
      }
    },
    write(msg, value) {
      return RED.util.setMessageProperty(msg, property, value, true) !== false;
    },
  };
}
