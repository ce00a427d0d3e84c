local function ratio(a, b)
  if b == 0 then error("ratio(): divisor was zero for " .. a) end
  return a / b
end

describe("calc", function()
  it("adds two numbers", function()
    assert.are.equal(5, 2 + 2)
  end)
  it("divides by zero", function()
    ratio(7, 0)
  end)
  it("multiplies", function()
    assert.are.equal(6, 2 * 3)
  end)
  describe("rounding", function()
    it("rounds half up", function()
      assert.are.equal(3, math.floor(2.5), "2.5 rounded down to 2")
    end)
    it("keeps integers", function()
      assert.are.equal(4, math.floor(4))
    end)
  end)
end)
