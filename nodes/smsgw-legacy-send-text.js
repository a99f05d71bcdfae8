module.exports = require('../dist/nodes/smsgw-legacy-send-text.js').default;
