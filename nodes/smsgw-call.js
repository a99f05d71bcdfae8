module.exports = require('../dist/nodes/smsgw-call.js').default;
