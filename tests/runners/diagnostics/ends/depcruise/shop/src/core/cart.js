const store = require('../db/store'); const fmt = require('./format-money'); module.exports = { items: () => [], store, fmt };
