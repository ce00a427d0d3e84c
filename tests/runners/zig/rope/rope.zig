//! A rope of strings with deliberate failing tests (issue 46 captures).
const std = @import("std");
const expectEqual = std.testing.expectEqual;
const expectEqualStrings = std.testing.expectEqualStrings;
const expectError = std.testing.expectError;
const expect = std.testing.expect;

fn weight(n: u32) u32 {
    return n * 3 + 1;
}

fn joined(a: []const u8) []const u8 {
    return if (a.len > 3) "rope-left-branch" else "rope";
}

fn depth(s: []const u8) !u8 {
    if (s.len == 0) return error.EmptyRope;
    return std.fmt.parseInt(u8, s, 10);
}

test "weight of a leaf" {
    try expectEqual(@as(u32, 4), weight(1));
}
test "weight of a wide node" {
    try expectEqual(@as(u32, 3001), weight(1000));
}
test "join keeps the right branch" {
    try expectEqualStrings("rope-right-branch", joined("abcd"));
}
test "empty depth is refused" {
    try expectError(error.EmptyRope, depth("7"));
}
test "depth beyond a byte overflows" {
    _ = try depth("900");
}
test "balanced flag" {
    try expect(weight(2) == 8);
}
