var wru = require('wru');
var Stack = require('./stack');
wru.test([
  {
    name: 'push returns the new size',
    test: function () {
      var s = new Stack(3);
      wru.assert('size after one push', s.push('a') === 1);
    }
  },
  {
    name: 'pop takes the last pushed',
    test: function () {
      var s = new Stack(3);
      s.push('a'); s.push('b');
      wru.assert('b comes off first', s.pop() === 'b');
    }
  },
  {
    name: 'full at its limit',
    test: function () {
      var s = new Stack(2);
      s.push(1); s.push(2);
      wru.assert('two of two is full', s.full());
    }
  },
  {
    name: 'peek of a missing stack',
    test: function () {
      wru.assert('peek says nothing', Stack.prototype.peek.call(null) === undefined);
    }
  }
]);
