import assert from "node:assert/strict";
import { fare, parseTicket, zones } from "./fares.ts";

Deno.test("day fare for 10 km", () => {
  assert.equal(fare(10), 14.5);
});

Deno.test("night fare adds a quarter", () => {
  assert.equal(fare(10, true), 18.5);
});

Deno.test("zones counts stops by letter", () => {
  assert.deepEqual(zones(["A1", "A2", "B7"]), { A: 2, B: 2 });
});

Deno.test("ticket without a seat", () => {
  assert.deepEqual(parseTicket("12"), { line: 12, seat: "?" });
});

Deno.test("tickets", async (t) => {
  await t.step("line number", () => {
    assert.equal(parseTicket("7-3A").line, 7);
  });
  await t.step("seat letter", () => {
    assert.ok(parseTicket("7-3A").seat.endsWith("B"), "seat letter drifted from B");
  });
});
