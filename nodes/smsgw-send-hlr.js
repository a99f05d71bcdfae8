module.exports = require('../dist/nodes/smsgw-send-hlr.js').default;
