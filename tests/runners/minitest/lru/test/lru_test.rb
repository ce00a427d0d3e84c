require "minitest/autorun"
require "lru"

class LRUTest < Minitest::Test
  def setup
    @c = LRU.new(2)
  end

  def test_put_and_get
    @c.put(:a, 1)
    assert_equal 1, @c.get(:a)
  end

  def test_get_refreshes_recency
    @c.put(:a, 1)
    @c.put(:b, 2)
    @c.get(:a)
    @c.put(:c, 3)
    assert_equal [:a, :c], @c.keys, "key :a was evicted although it was just read"
  end

  def test_fetch_missing
    assert_equal 0, @c.fetch!(:nope)
  end

  def test_capacity_zero
    skip "capacity 0 is not specified yet"
  end
end

describe LRU do
  it "never grows past capacity" do
    c = LRU.new(1)
    c.put(:x, 1)
    c.put(:y, 2)
    _(c.size).must_equal 1
  end

  it "evicts the oldest when full" do
    c = LRU.new(2)
    3.times { |i| c.put(i, i) }
    _(c.keys).must_equal [0, 2]
  end
end
