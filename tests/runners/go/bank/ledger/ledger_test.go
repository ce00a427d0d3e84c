package ledger

import "testing"

func TestDeposit(t *testing.T) {
	a := &Account{}
	a.Deposit(250)
	if a.Cents != 250 {
		t.Fatalf("balance %d", a.Cents)
	}
}

func TestWithdraw(t *testing.T) {
	t.Run("within balance", func(t *testing.T) {
		a := &Account{Cents: 500}
		if err := a.Withdraw(200); err != nil || a.Cents != 300 {
			t.Errorf("withdraw 200 from 500: err=%v balance=%d", err, a.Cents)
		}
	})
	t.Run("overdraft refused", func(t *testing.T) {
		a := &Account{Cents: 500}
		if err := a.Withdraw(550); err != ErrInsufficient {
			t.Errorf("overdraft of 50 cents was allowed, balance now %d", a.Cents)
		}
	})
}
