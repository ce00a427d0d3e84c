import assert from "node:assert";
import { Shelf } from "./shelf.js";

Deno.test("put returns the count", () => {
  const s = new Shelf(3);
  assert.strictEqual(s.put("jam"), 1);
});

Deno.test("a full shelf refuses", () => {
  const s = new Shelf(1);
  s.put("jam");
  assert.strictEqual(s.put("tea"), 2);
});

Deno.test("labels join in order", () => {
  const s = new Shelf(3);
  s.put("jam");
  s.put("tea");
  assert.strictEqual(s.label(), "TEA, JAM");
});

Deno.test("label of numbers", () => {
  const s = new Shelf(2);
  s.put(7);
  assert.strictEqual(s.label(), "7");
});
