module.exports = require('../dist/nodes/smsgw-inbound.js').default;
