var Notes = function() {
  this.list = [];
}

Notes.prototype.add = function(text) {
  if (text.length == 0) return;
  this.list.push({text: text, at: Date.now()})
};

Notes.prototype.find = function(word){
  return this.list.filter(function(n) {
      return n.text.indexOf(word) >= 0;
  });
};

module.exports = Notes;
