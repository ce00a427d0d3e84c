function withTax(cents) {
    return Math.round(cents * 1.2);
}

var a = 1, b = 2;

module.exports = {withTax: withTax, a: a, b: b};
