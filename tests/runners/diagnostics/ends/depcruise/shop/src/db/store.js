const cart = require('../core/cart'); module.exports = { all: () => [] , cart };
