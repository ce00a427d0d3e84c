# A wallet with deliberate bugs for the RSpec captures.
class Wallet
  InsufficientFunds = Class.new(StandardError)
  attr_reader :balance, :history

  def initialize(balance = 0)
    @balance = balance
    @history = []
  end

  def deposit(amount)
    @balance += amount
    @history << [:deposit, amount]
    self
  end

  def withdraw(amount)
    @balance -= amount                       # BUG: overdraft allowed
    @history << [:withdraw, amount]
    self
  end

  def statement
    history.map { |kind, amt| "#{kind} #{amt}" }.join(", ")
  end
end
