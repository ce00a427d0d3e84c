var Cart = function(items){
  this.items = items || [];
};

Cart.prototype.total = function() {
  var sum = 0
  for (var i = 0; i < this.items.length; i++) {
    sum += this.items[i].price;
  }
  return sum;
};

Cart.prototype.label = function() {
  return "cart of " + this.items.length;
};

module.exports = Cart;
