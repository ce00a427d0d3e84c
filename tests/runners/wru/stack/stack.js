// A bounded stack with deliberate bugs, tested by wru.
function Stack(limit) { this.items = []; this.limit = limit; }
Stack.prototype.push = function (x) { this.items.push(x); return this.items.length; };
Stack.prototype.pop = function () { return this.items.shift(); };
Stack.prototype.peek = function () { return this.items[this.items.length - 1]; };
Stack.prototype.full = function () { return this.items.length > this.limit; };
module.exports = Stack;
