/**
 * The node definitions as the editor registers them: each nodes/<type>.html's registerType script run in a
 * sandbox with a stand-in RED (validators return functions, nothing else is called at registration), so tests
 * read the real `defaults` (values, config node references) instead of a copy of them.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { runInNewContext } from 'node:vm';

export interface DefaultSpec {
  value?: unknown;
  /** A config node type: the field holds that config node's id. */
  type?: string;
  required?: boolean;
  validate?: (this: unknown, v: unknown, opt?: unknown) => unknown;
}

export interface EditorDefinition {
  category: string;
  defaults: Record<string, DefaultSpec>;
  [key: string]: unknown;
}

const root = path.join(__dirname, '..', '..');

export const NODE_TYPES: string[] = Object.keys(
  (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { 'node-red': { nodes: object } })[
    'node-red'
  ].nodes,
);

export function editorDefinition(type: string): EditorDefinition {
  const html = readFileSync(path.join(root, 'nodes', `${type}.html`), 'utf8');
  const script = /<script type="text\/javascript">([\s\S]*?)<\/script>/.exec(html);
  if (!script) throw new Error(`${type}.html has no registerType script`);
  const found: Record<string, EditorDefinition> = {};
  const validator = (): (() => boolean) => () => true;
  const RED = {
    nodes: {
      registerType: (t: string, def: EditorDefinition) => {
        found[t] = def;
      },
    },
    validators: { number: validator, regex: validator, typedInput: validator },
  };
  // The HTML loads resources/fields.js first: its defaults come from the field tables.
  const context = { RED, window: {} as Record<string, unknown>, $: () => undefined };
  runInNewContext(readFileSync(path.join(root, 'resources', 'fields.js'), 'utf8'), context);
  runInNewContext(script[1]!, context);
  const def = found[type];
  if (!def) throw new Error(`${type}.html does not register ${type}`);
  return def;
}

/** Field → default value of every field that has one (config node references and `undefined` left out). */
export function defaultValues(type: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(editorDefinition(type).defaults)) {
    if (spec.type !== undefined || spec.value === undefined) continue;
    out[key] = spec.value;
  }
  return out;
}
