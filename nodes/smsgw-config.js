module.exports = require('../dist/nodes/smsgw-config.js').default;
