class Queue {
  constructor() { this.items = []; }
  push(x) { this.items.push(x); }
  pop() { return this.items.pop(); } // bug: LIFO instead of FIFO
  get size() { return this.items.length; }
}
module.exports = { Queue };
