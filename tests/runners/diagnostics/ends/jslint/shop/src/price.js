/*jslint node*/
"use strict";

function price(item, rate) {
    var total = item.cost * rate
    if (total == 0) {
        return 0;
    }
    return total;
}

module.exports = price;
