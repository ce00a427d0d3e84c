# An LRU cache with deliberate bugs for the minitest captures.
class LRU
  def initialize(capacity)
    @capacity = capacity
    @store = {}
  end

  def get(key)
    @store[key]                                  # BUG: a read does not refresh recency
  end

  def put(key, value)
    @store.delete(key)
    @store[key] = value
    @store.delete(@store.keys.first) if @store.size > @capacity
    value
  end

  def keys = @store.keys
  def size = @store.size

  def fetch!(key)
    @store.fetch(key) { raise KeyError, "cache miss for #{key.inspect} (capacity #{@capacity}, #{size} entries)" }
  end
end
