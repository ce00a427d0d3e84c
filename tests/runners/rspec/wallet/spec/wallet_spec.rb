require_relative "../lib/wallet"

RSpec.describe Wallet do
  subject(:wallet) { described_class.new(100) }

  describe "#deposit" do
    it "adds to the balance" do
      expect(wallet.deposit(50).balance).to eq(150)
    end
  end

  describe "#withdraw" do
    it "subtracts from the balance" do
      expect(wallet.withdraw(30).balance).to eq(70)
    end

    context "when funds are insufficient" do
      it "raises InsufficientFunds" do
        expect { wallet.withdraw(500) }.to raise_error(Wallet::InsufficientFunds)
      end

      it "leaves the balance unchanged" do
        wallet.withdraw(500) rescue nil
        expect(wallet.balance).to eq(100), "balance went to #{wallet.balance} after a refused withdrawal"
      end
    end
  end

  describe "#statement" do
    it "lists operations in order" do
      wallet.deposit(5).withdraw(2)
      expect(wallet.statement).to eq("deposit 5, withdrawal 2")
    end

    it "has a history with both kinds" do
      wallet.deposit(1).withdraw(1)
      expect(wallet.history).to contain_exactly([:deposit, 1], [:withdrawal, 1])
    end
  end
end
