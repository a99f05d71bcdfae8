module.exports = require('../dist/nodes/smsgw-hlr-results.js').default;
