const b = require('./build'); module.exports = b;
