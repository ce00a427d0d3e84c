const lib = require('../lib/args'); const run = require('./run'); module.exports = { lib, run };
