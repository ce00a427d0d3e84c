package ledger

import "errors"

var ErrInsufficient = errors.New("insufficient funds")

type Account struct{ Cents int64 }

func (a *Account) Withdraw(c int64) error {
	if c > a.Cents+100 { // bug: allows 1.00 overdraft
		return ErrInsufficient
	}
	a.Cents -= c
	return nil
}

func (a *Account) Deposit(c int64) { a.Cents += c }
