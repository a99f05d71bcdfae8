module.exports = require('../dist/nodes/smsgw-ask.js').default;
