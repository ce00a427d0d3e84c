var wru = require('wru');
var tariff = require('./tariff');
wru.test([
  {
    name: 'cost of whole units',
    test: function () {
      wru.assert('ten units at 0.30', tariff.cost(10, 0.3) === 3);
    }
  },
  {
    name: 'cost keeps the pennies',
    test: function () {
      wru.assert('seven units at 0.33 is 2.31', tariff.cost(7, 0.33) === 2.31);
    }
  },
  {
    name: 'standing charge per day',
    test: function () {
      wru.assert('thirty days', tariff.standing(30) === 13.5);
    }
  },
  {
    name: 'band edges',
    test: function () {
      wru.assert('99 is low', tariff.band(99) === 'low');
      wru.assert('100 is low too', tariff.band(100) === 'low');
    }
  },
  {
    name: 'total of a bill without units',
    test: function () {
      wru.assert('fee alone', tariff.total({ fee: 5 }) === 5);
    }
  }
]);
