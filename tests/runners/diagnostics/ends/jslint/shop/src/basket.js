/*jslint node*/
"use strict";

function add(basket, item) {
    var unused = item;
    basket.push(item);
    console.log(basket.length);
    return basket;
}

module.exports = add;
