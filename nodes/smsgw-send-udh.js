module.exports = require('../dist/nodes/smsgw-send-udh.js').default;
