module.exports = require('../dist/nodes/smsgw-budget.js').default;
