module.exports = require('../dist/nodes/smsgw-dlr.js').default;
