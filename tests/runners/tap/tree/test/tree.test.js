import t from 'tap';
import { Node } from '../tree.js';

t.test('tree', async (t) => {
  t.test('walk', async (t) => {
    t.test('pre-order keys', async (t) => {
      const root = new Node('root').add('left', 'right');
      t.same(root.keys(), ['root', 'left', 'middle', 'right']);
    });
    t.test('finds a leaf', async (t) => {
      t.equal(new Node('root').add('leaf').find('leaf'), 'leaf');
    });
  });
  t.test('depth of a single leaf', async (t) => {
    t.equal(new Node('solo').depth(), 1, 'leaf depth should be one');
  });
});

t.test('remove a branch', async (t) => {
  const root = new Node('root').add('branch-b7');
  root.remove('branch-b7');
  t.equal(root.children.length, 0);
});

t.test('size', async (t) => {
  t.equal(new Node('a').add('b', 'c').keys().length, 3);
});
