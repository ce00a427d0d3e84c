describe("words", function()
  it("splits on spaces", function()
    local parts = {}
    for w in ("one two three"):gmatch("%S+") do parts[#parts + 1] = w end
    assert.are.same({ "one", "two" }, parts)
  end)
  it("uppercases", function()
    assert.are.equal("HELLO", ("hello"):upper())
  end)
  it("trims", function()
    local s = ("  padded  "):match("^%s*(.-)%s*$")
    assert.is_true(#s == 7, "trimmed length was " .. #s)
  end)
  it("reverses", function()
    local t = nil
    return t.reversed
  end)
end)
