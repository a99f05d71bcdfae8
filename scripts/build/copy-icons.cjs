#!/usr/bin/env node
/**
 * Part of `npm run build` (and so of `prepare`: a git install and `npm publish` run it): places the palette icons
 * where Node-RED looks for them. Node-RED reads a node's icons only from `icons/` beside the node's .js file
 * (@node-red/registry localfilesystem.js), which for this package is nodes/icons/. The single source is the
 * top-level icons/; nodes/icons/ is build output (gitignored) and holds exactly the SVGs of icons/ afterwards, so
 * an icon deleted or renamed in icons/ does not linger in what `npm pack` ships.
 *
 * Plain CommonJS with no dependencies: it runs wherever `npm run build` runs.
 */
/* global process, __dirname */
'use strict';

const fs = require('node:fs');
const path = require('node:path');

/** Copies `<root>/icons/*.svg` to `<root>/nodes/icons/`, removing SVGs there that icons/ no longer has. */
function copyIcons(root) {
  const from = path.join(root, 'icons');
  const to = path.join(root, 'nodes', 'icons');
  const icons = fs.readdirSync(from).filter((f) => f.endsWith('.svg'));
  if (icons.length === 0) throw new Error(`no .svg in ${from}`);
  fs.mkdirSync(to, { recursive: true });
  for (const old of fs.readdirSync(to)) {
    if (old.endsWith('.svg') && !icons.includes(old)) fs.rmSync(path.join(to, old));
  }
  for (const icon of icons) fs.copyFileSync(path.join(from, icon), path.join(to, icon));
  return icons;
}

module.exports = { copyIcons };

if (require.main === module) {
  const root = process.argv[2] ? path.resolve(process.argv[2]) : path.resolve(__dirname, '..', '..');
  const icons = copyIcons(root);
  process.stdout.write(`icons/ -> nodes/icons/: ${icons.join(', ')}\n`);
}
