const test = require('aqa');
const shelf = require('../shelf');

test('spine label puts the title first', (t) => {
  t.is(shelf.spineLabel('Dune', 'Herbert'), 'Dune / Herbert');
});

test('counts books per genre', (t) => {
  t.deepEqual(shelf.countByGenre([{ genre: 'sf' }, { genre: 'sf' }]), { sf: 2 });
});

test('isbn keeps only digits', (t) => {
  t.is(shelf.parseIsbn('978-0-441-17271-9'), '9780441172719');
});

test('isbn of nothing is empty', (t) => {
  t.is(shelf.parseIsbn(undefined), '');
});

test('shelf width of two books', (t) => {
  t.is(shelf.shelfWidth([{ pages: 300 }, { pages: 250 }]), 5.5);
});

test('titles sort alphabetically', (t) => {
  t.deepEqual(shelf.sortByTitle([{ title: 'b' }, { title: 'a' }, { title: 'c' }]), ['a', 'b', 'c']);
});

test('an empty shelf has no width', (t) => {
  t.is(shelf.shelfWidth([]), 0);
});
