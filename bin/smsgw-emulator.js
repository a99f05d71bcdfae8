#!/usr/bin/env node
'use strict';

require('../dist/emulator/cli.js')
  .main(process.argv.slice(2))
  .catch((err) => {
    process.stderr.write(`smsgw-emulator: ${err && err.message ? err.message : String(err)}\n`);
    process.exit(1);
  });
