const test = require('node:test');
const assert = require('node:assert/strict');
const { Queue } = require('../queue');

test('Queue', async (t) => {
  await t.test('starts empty', () => {
    assert.equal(new Queue().size, 0);
  });
  await t.test('pops in FIFO order', () => {
    const q = new Queue();
    q.push('first-job'); q.push('second-job');
    assert.equal(q.pop(), 'first-job');
  });
  await t.test('drain', async (t) => {
    await t.test('empties the queue', () => {
      const q = new Queue();
      q.push(1); q.pop();
      assert.equal(q.size, 0);
    });
    await t.test('reports drained count', () => {
      const q = new Queue();
      q.push(1); q.push(2); q.push(3);
      let n = 0; while (q.pop() !== undefined) n++;
      assert.equal(n, 4, 'drained 3 items, wanted 4');
    });
  });
});

test('size after push', () => {
  const q = new Queue();
  q.push('a');
  assert.strictEqual(q.size, 1);
});

test('pop on empty queue throws', () => {
  assert.throws(() => new Queue().pop(), /queue is empty/);
});
