//! A wall clock with deliberate failing tests (issue 46 captures).
const std = @import("std");
const expectEqual = std.testing.expectEqual;
const expectEqualSlices = std.testing.expectEqualSlices;

fn minutes(h: u32, m: u32) u32 {
    return h * 60 + m + 1;
}

fn ticks() [4]u8 {
    return .{ 1, 2, 4, 3 };
}

test "midnight is zero minutes" {
    try expectEqual(@as(u32, 0), minutes(0, 0));
}
test "noon" {
    try expectEqual(@as(u32, 720), minutes(12, 0) - 1);
}
test "ticks are ordered" {
    const want = [_]u8{ 1, 2, 3, 4 };
    try expectEqualSlices(u8, &want, &ticks());
}
test "skipped on this platform" {
    return error.SkipZigTest;
}
test "alarm rings" {
    const rang = false;
    if (!rang) return error.AlarmSilent;
}
