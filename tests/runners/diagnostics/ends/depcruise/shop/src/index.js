const p = require('../ui/page'); module.exports = p;
