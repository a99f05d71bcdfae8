module.exports = require('../dist/nodes/smsgw-customer.js').default;
