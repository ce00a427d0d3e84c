const chalk = require('chalk'); module.exports = { chalk };
