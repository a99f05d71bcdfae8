module.exports = require('../dist/nodes/smsgw-query-jobs.js').default;
