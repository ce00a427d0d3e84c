export class Shelf {
  constructor(size) { this.size = size; this.items = []; }
  put(item) {
    if (this.items.length >= this.size) throw new Error(`shelf full at ${this.size}`);
    this.items.push(item);
    return this.items.length;
  }
  label() { return this.items.map((i) => i.toUpperCase()).join(", "); }
}
