import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as acorn from 'acorn';

const root = path.join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  'node-red': { version: string; nodes: Record<string, string> };
};

type AnyNode = acorn.Node & Record<string, unknown>;

/** The registerType call the Flow Library scorecard looks for: the same regex and parser it uses. */
function registration(html: string): { type: string; def: Map<string, AnyNode> } {
  const script = /<script.+?type=['"]text\/javascript['"].*?>([\S\s]*?)<\/script>/i.exec(html);
  assert.ok(script, 'no <script type="text/javascript">');
  const ast = acorn.parse(script[1]!, { ecmaVersion: 2018 }) as unknown as AnyNode;
  let found: { type: string; def: Map<string, AnyNode> } | undefined;
  const visit = (n: unknown): void => {
    if (!n || typeof n !== 'object') return;
    const node = n as AnyNode;
    if (node.type === 'CallExpression') {
      const callee = node.callee as AnyNode;
      const text = script[1]!.slice(callee.start, callee.end);
      if (text === 'RED.nodes.registerType') {
        const [name, def] = node.arguments as AnyNode[];
        assert.equal(name!.type, 'Literal');
        assert.equal(def!.type, 'ObjectExpression');
        const props = new Map<string, AnyNode>();
        for (const p of def!.properties as AnyNode[]) {
          const key = p.key as AnyNode;
          props.set(String(key.name ?? key.value), p.value as AnyNode);
        }
        found = { type: String(name!.value), def: props };
      }
    }
    for (const v of Object.values(node)) {
      if (Array.isArray(v)) v.forEach(visit);
      else if (v && typeof v === 'object' && 'type' in v) visit(v);
    }
  };
  visit(ast);
  assert.ok(found, 'no RED.nodes.registerType(...) literal');
  return found;
}

describe('nodes: editor HTML (as the scorecard parses it)', () => {
  it('package.json lists every node, Node-RED >=4.0.0, with a shim next to each HTML', () => {
    assert.equal(pkg['node-red'].version, '>=4.0.0');
    for (const [type, file] of Object.entries(pkg['node-red'].nodes)) {
      assert.equal(file, `nodes/${type}.js`);
      assert.equal(
        readFileSync(path.join(root, file), 'utf8').trim(),
        `module.exports = require('../dist/nodes/${type}.js').default;`,
      );
      assert.ok(existsSync(path.join(root, 'src', 'nodes', `${type}.ts`)));
    }
  });

  for (const type of Object.keys(pkg['node-red'].nodes)) {
    it(`${type}: ES2018, literal definition, icon present, credentials only in credentials`, () => {
      const html = readFileSync(path.join(root, 'nodes', `${type}.html`), 'utf8');
      const { type: registered, def } = registration(html);
      assert.equal(registered, type);
      for (const key of ['category', 'defaults']) assert.ok(def.has(key), `${key} missing`);
      const category = def.get('category')!;
      assert.equal(category.type, 'Literal');
      const defaults = def.get('defaults')! as AnyNode;
      assert.equal(defaults.type, 'ObjectExpression');
      const defaultNames = (defaults.properties as AnyNode[]).map((p) => String((p.key as AnyNode).name));
      assert.ok(!defaultNames.some((n) => /^(user|password|apikey|token)$/i.test(n)), defaultNames.join());
      if (type === 'smsgw-config') {
        assert.equal(category.value, 'config');
        const creds = def.get('credentials') as AnyNode;
        const names = (creds.properties as AnyNode[]).map((p) => String((p.key as AnyNode).name));
        assert.deepEqual(names, ['user', 'password', 'proxyPassword', 'redisPassword']);
      } else {
        assert.equal(category.value, 'SMS gateway');
        for (const key of ['color', 'icon', 'inputs', 'outputs']) {
          assert.equal(def.get(key)?.type, 'Literal', `${key} must be an inline literal`);
        }
        const icon = String(def.get('icon')!.value);
        assert.match(icon, /^smsgw-[a-z]+\.svg$/);
        // the source; the build places it beside the node files (test/nodes/icons.test.ts)
        const svg = readFileSync(path.join(root, 'icons', icon), 'utf8');
        assert.match(svg, /width="40" height="60"/);
        assert.ok(!/fill="#(?!fff)/i.test(svg), 'icons are white on transparent');
        assert.ok(defaultNames.includes('gateway'));
        assert.match(html, new RegExp(`data-template-name="${type}"`));
      }
    });
  }

  it('every field label in every dialog starts with an icon, as core dialogs do (checkbox labels aside)', () => {
    const bare: string[] = [];
    for (const type of Object.keys(pkg['node-red'].nodes)) {
      const html = readFileSync(path.join(root, 'nodes', `${type}.html`), 'utf8');
      const template = html.slice(html.indexOf('data-template-name'));
      for (const m of template.matchAll(/<label for="([^"]+)"[^>]*>([\s\S]*?)<\/label>/g)) {
        const [, target, inner] = m as unknown as [string, string, string];
        const checkbox =
          inner.includes('type="checkbox"') || new RegExp(`type="checkbox" id="${target}"`).test(template);
        if (!checkbox && !/^\s*<i class="fa fa-[\w-]+"><\/i>/.test(inner)) bare.push(`${type}: ${target}`);
      }
    }
    assert.deepEqual(bare, []);
  });

  it('every node HTML first loads resources/fields.js and resources/editor.js, which is packed, ES2018 and defines what the dialogs call', () => {
    const files = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { files: string[] })
      .files;
    assert.ok(files.includes('resources'), 'resources/ is not in package.json files');
    const shared = readFileSync(path.join(root, 'resources', 'editor.js'), 'utf8');
    acorn.parse(shared, { ecmaVersion: 2018 });
    // The field rules as the editor runs them (npm run generate writes them from src/nodes/fields).
    acorn.parse(readFileSync(path.join(root, 'resources', 'fields.js'), 'utf8'), { ecmaVersion: 2018 });
    const returned = /return \{([^}]*)\};\s*\}\)\(\);\s*$/.exec(shared);
    assert.ok(returned, 'editor.js does not end by returning its helpers');
    const exported = new Set([...returned[1]!.matchAll(/(\w+):/g)].map((m) => m[1]));
    for (const type of Object.keys(pkg['node-red'].nodes)) {
      const html = readFileSync(path.join(root, 'nodes', `${type}.html`), 'utf8');
      assert.ok(
        html.startsWith(
          '<script src="resources/@smsgw/node-red-sms-gateway/fields.js"></script>\n' +
            '<script src="resources/@smsgw/node-red-sms-gateway/editor.js"></script>\n',
        ),
        `${type} does not load the field rules and the shared editor script first`,
      );
      const called = [...html.matchAll(/(?:window\.smsgwEditor|\bed)\.(\w+)/g)].map((m) => m[1]!);
      for (const name of called)
        assert.ok(exported.has(name), `${type} calls smsgwEditor.${name}, not defined`);
    }
  });
});
