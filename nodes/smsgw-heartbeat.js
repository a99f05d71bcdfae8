module.exports = require('../dist/nodes/smsgw-heartbeat.js').default;
