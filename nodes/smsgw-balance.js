module.exports = require('../dist/nodes/smsgw-balance.js').default;
