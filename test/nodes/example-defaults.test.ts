/**
 * An imported example behaves like a node dragged from the palette: Node-RED's import keeps a missing field
 * missing, so every field of the editor's defaults must be in the example. The dialogs also
 * show the default of a field a node lacks (resources/editor.js `defaults`, checked in the browser by
 * test/e2e/examples.e2e.ts); this test keeps the shipped examples complete on their own.
 */
import assert from 'node:assert/strict';
import { listExamples } from '../../scripts/lib/flows';
import { defaultValues, editorDefinition, NODE_TYPES } from './editor-definitions';

describe('nodes: examples carry every field of their nodes’ editor defaults', () => {
  for (const { name, nodes } of listExamples()) {
    it(`"${name}"`, () => {
      const missing: string[] = [];
      for (const n of nodes.filter((x) => NODE_TYPES.includes(x.type))) {
        const absent = Object.keys(defaultValues(n.type)).filter((key) => !(key in n));
        if (absent.length > 0) missing.push(`${n.type} ${String(n.name || n.id)}: ${absent.join(', ')}`);
      }
      assert.deepEqual(missing, []);
    });
  }
});

describe("nodes: every dialog shows a missing field's default", () => {
  for (const type of NODE_TYPES) {
    it(`${type}: oneditprepare starts with smsgwEditor.defaults(this)`, () => {
      const def = editorDefinition(type);
      assert.equal(typeof def.oneditprepare, 'function', `${type} has no oneditprepare`);
      const body = String(def.oneditprepare as () => void)
        .replace(/^function\s*\(\)\s*\{\s*/, '')
        .replace(/\/\/[^\n]*\n\s*/g, '');
      assert.match(body, /^window\.smsgwEditor\.defaults\(this\);/, `${type}: ${body.slice(0, 80)}`);
    });
  }
});
