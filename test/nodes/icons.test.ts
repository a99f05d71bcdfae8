/**
 * The palette icons: one source in the top-level icons/, placed beside the node files (nodes/icons/, where
 * Node-RED looks) by `npm run build`, which `prepare` runs for a git install and `npm publish`.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { copyIcons } from '../../scripts/build/copy-icons.cjs';
import { npmCommand } from '../../scripts/lib/package';

const root = path.join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  files: string[];
  'node-red': { nodes: Record<string, string> };
};
const svgs = (dir: string): string[] =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.svg'))
    .sort();

describe('nodes: palette icons (top-level icons/ placed beside the node files by the build)', () => {
  it('every icon a node names is in icons/, and icons/ holds no other', () => {
    const named = new Set<string>();
    for (const type of Object.keys(pkg['node-red'].nodes)) {
      const html = readFileSync(path.join(root, 'nodes', `${type}.html`), 'utf8');
      const m = /\bicon:\s*'([^']+)'/.exec(html);
      if (m) named.add(m[1]!);
    }
    assert.deepEqual(svgs(path.join(root, 'icons')), [...named].sort());
  });

  it('nodes/icons/ is build output: ignored by git, nothing of it committed', () => {
    const tracked = execFileSync('git', ['ls-files', 'nodes/icons'], { cwd: root, encoding: 'utf8' });
    assert.equal(tracked.trim(), '');
    const ignored = execFileSync('git', ['check-ignore', 'nodes/icons/smsgw-send.svg'], {
      cwd: root,
      encoding: 'utf8',
    });
    assert.equal(ignored.trim(), 'nodes/icons/smsgw-send.svg');
  });

  it('the build copies them (and prepare is the build, as a git install runs it)', () => {
    assert.match(pkg.scripts.build!, /node scripts\/build\/copy-icons\.cjs/);
    assert.equal(pkg.scripts.prepare, 'npm run build');
    assert.ok(pkg.files.includes('nodes'), 'package.json files does not ship nodes/');
  });

  it('copyIcons: nodes/icons/ ends up holding exactly the SVGs of icons/', () => {
    const tmp = mkdtempSync(path.join(tmpdir(), 'smsgw-icons-'));
    try {
      mkdirSync(path.join(tmp, 'icons'));
      mkdirSync(path.join(tmp, 'nodes', 'icons'), { recursive: true });
      writeFileSync(path.join(tmp, 'icons', 'a.svg'), '<svg id="a2"/>');
      writeFileSync(path.join(tmp, 'icons', 'notes.txt'), 'not an icon');
      writeFileSync(path.join(tmp, 'nodes', 'icons', 'a.svg'), '<svg id="a1"/>');
      writeFileSync(path.join(tmp, 'nodes', 'icons', 'renamed-away.svg'), '<svg/>');
      assert.deepEqual(copyIcons(tmp), ['a.svg']);
      assert.deepEqual(readdirSync(path.join(tmp, 'nodes', 'icons')), ['a.svg']);
      assert.equal(readFileSync(path.join(tmp, 'nodes', 'icons', 'a.svg'), 'utf8'), '<svg id="a2"/>');
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('after the build, nodes/icons/ matches icons/ byte for byte and npm pack ships it', function () {
    // npm pack takes ~20 s on a loaded 2-core machine.
    this.timeout(120_000);
    const built = path.join(root, 'nodes', 'icons');
    assert.deepEqual(svgs(built), svgs(path.join(root, 'icons')), 'run npm run build first');
    for (const icon of svgs(built)) {
      assert.ok(
        readFileSync(path.join(built, icon)).equals(readFileSync(path.join(root, 'icons', icon))),
        icon,
      );
    }
    const [cmd, args] = npmCommand(['pack', '--dry-run', '--json', '--ignore-scripts']);
    const [packed] = JSON.parse(execFileSync(cmd, args, { cwd: root, encoding: 'utf8' })) as {
      files: { path: string }[];
    }[];
    const shipped = packed!.files.map((f) => f.path).filter((p) => p.endsWith('.svg'));
    assert.deepEqual(
      shipped.sort(),
      svgs(built).map((i) => `nodes/icons/${i}`),
    );
  });
});
