module.exports = require('../dist/nodes/smsgw-optout.js').default;
