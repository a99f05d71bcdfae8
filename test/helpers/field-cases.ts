/**
 * The junk a new user types into a field (negative, 0, fractional, NaN, text, blank, huge, an environment variable
 * that is not set), for every declared field of every node type: one list of cases, from which the runtime test
 * (test/nodes/field-junk.test.ts: a real deploy) and the browser test (test/e2e/fields.e2e.ts: the real editor)
 * both take what they feed and what they expect. A field added to a table is covered by both at once.
 *
 * What each side is expected to say comes from the field rules (src/nodes/fields) in en-US words. The two sides
 * agree on every case but two kinds, as documented (docs/nodes.md "Fields"):
 * - `${NAME}` with NAME not set: Node-RED's editor takes any `${NAME}` as valid before a validator runs (it cannot
 *   see the runtime's environment); the runtime refuses it at deploy, naming the variable.
 * - a reference to a configuration node: Node-RED's own check and words in the editor, a red "missing" status and
 *   CONFIG for each msg at runtime.
 */
import { FIELDS } from '../../src/nodes/fields';
import type { Field } from '../../src/nodes/fields/rule';
import { checkSettings } from '../../src/nodes/common/fields';

/** The id of the (valid) gateway configuration the nodes of a case use. */
export const CONFIG_ID = 'cfg';

/** An environment variable no test sets. */
export const UNSET_ENV = 'SMSGW_TEST_UNSET_ENV';

/** Typed into a field as text, as a person types them. */
export const JUNK: readonly string[] = ['-1', '0', '1.5', 'NaN', 'abc', '', '1e12', `\${${UNSET_ENV}}`];

/** Fields that need a value of their own for a node to be valid at all (the rest take their declared value). */
export const EXAMPLES: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  'smsgw-config': { baseUrl: 'http://127.0.0.1:9/', redisUrl: 'redis://127.0.0.1:9/0' },
  'smsgw-ask': { numbers: '+4917012345678' },
  'smsgw-call': { operation: 'QueryAccountBalance', path: '/gateway/Information.asmx', userParam: 'User' },
};

export interface Verdict {
  refused: boolean;
  /** The words of the refusal (en-US), when they are the field rule's. */
  reason?: string;
}

export interface FieldCase {
  nodeType: string;
  field: string;
  kind: Field['kind'];
  junk: string;
  /** The node's settings: its valid base, the conditions the field is judged under, and the junk. */
  values: Record<string, unknown>;
  /** Other fields set so that the field's rule applies (coordinating, tracking, a path, named credentials). */
  context: Record<string, unknown>;
  editor: Verdict;
  runtime: Verdict;
}

/**
 * A node's settings as a new node has them, with the gateway configuration `cfg` and the examples: valid as they are
 * (fields.test.ts checks it).
 */
export function baseValues(nodeType: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(FIELDS[nodeType]!)) {
    if (field.kind === 'config') out[name] = CONFIG_ID;
    else if (field.value !== undefined) out[name] = field.value;
    if (field.kind === 'typed') out[`${name}Type`] = field.types![0];
  }
  return { ...out, ...EXAMPLES[nodeType] };
}

/** The fields junk can be typed or imported into: all but what the dialog keeps by itself. */
export const junkable = (field: Field): boolean => field.kind !== 'internal';

/** Every case: each junkable field of each node type with each junk value. */
export function fieldCases(): FieldCase[] {
  const cases: FieldCase[] = [];
  for (const [nodeType, table] of Object.entries(FIELDS)) {
    const base = baseValues(nodeType);
    for (const [field, rule] of Object.entries(table)) {
      if (!junkable(rule)) continue;
      const context: Record<string, unknown> = rule.when ? { [rule.when.field]: rule.when.is[0] } : {};
      for (const junk of JUNK) {
        const values = { ...base, ...context, [field]: junk };
        let runtime: Verdict;
        // A configuration that is not there; blank is refused where one is required (the heartbeat node's is optional).
        if (rule.kind === 'config') runtime = { refused: junk !== '' || rule.blank === 'required' };
        else {
          const { reasons } = checkSettings(nodeType, values);
          if (reasons.length > 1) throw new Error(`${nodeType}.${field} = "${junk}": ${reasons.join('; ')}`);
          runtime = reasons.length === 0 ? { refused: false } : { refused: true, reason: reasons[0]! };
        }
        const envRef = /^\$\{\w+\}$/.test(junk);
        const editor: Verdict = envRef
          ? { refused: false }
          : rule.kind === 'config'
            ? { refused: runtime.refused }
            : runtime;
        cases.push({ nodeType, field, kind: rule.kind, junk, values, context, editor, runtime });
      }
    }
  }
  return cases;
}
