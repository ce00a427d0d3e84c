// A small tree with deliberate bugs for the node-tap captures.
export class Node {
  constructor(key) { this.key = key; this.children = []; }
  add(...keys) { for (const k of keys) this.children.push(new Node(k)); return this; }
  depth() { return this.children.length ? 1 + Math.max(...this.children.map((c) => c.depth())) : 0; } // BUG: leaf depth 0
  keys() { return [this.key, ...this.children.flatMap((c) => c.keys())]; }
  find(k) { return this.keys().includes(k) ? k : undefined; }
  remove(k) { throw new Error(`cannot detach ${k}: node is the root of a subtree`); }
}
