// The soak's probe, loaded by the Node-RED under test from its userDir/nodes: an admin route that reports the
// process's heap after a full GC, RSS, open file descriptors and CPU time. Not part of the package.
/* global process */
'use strict';
const v8 = require('node:v8');
const vm = require('node:vm');
const fs = require('node:fs');

module.exports = function (RED) {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc');
  function SoakProbe(config) {
    RED.nodes.createNode(this, config);
  }
  RED.nodes.registerType('soak-probe', SoakProbe);
  RED.httpAdmin.get('/soak-probe/stats', (_req, res) => {
    gc();
    gc();
    const m = process.memoryUsage();
    let fds = -1;
    try {
      fds = fs.readdirSync('/proc/self/fd').length;
    } catch {
      // not Linux
    }
    const cpu = process.cpuUsage();
    res.json({ heapUsed: m.heapUsed, heapTotal: m.heapTotal, rss: m.rss, external: m.external, fds, cpuUs: cpu.user + cpu.system, uptimeS: process.uptime() });
  });
};
