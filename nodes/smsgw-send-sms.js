module.exports = require('../dist/nodes/smsgw-send-sms.js').default;
