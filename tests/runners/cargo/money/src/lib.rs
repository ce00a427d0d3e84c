//! Money arithmetic with deliberate bugs for the doctest and libtest-json captures.

/// An amount in minor units (cents) of one currency.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Money {
    pub cents: i64,
    pub currency: &'static str,
}

impl Money {
    /// Builds an amount.
    ///
    /// ```
    /// let m = money::Money::new(1250, "EUR");
    /// assert_eq!(m.cents, 1250);
    /// ```
    pub fn new(cents: i64, currency: &'static str) -> Money {
        Money { cents, currency }
    }

    /// Adds two amounts of the same currency.
    ///
    /// ```
    /// use money::Money;
    /// let a = Money::new(1999, "EUR");
    /// let b = Money::new(1, "USD");
    /// let _ = a.add(b); // mixing currencies must panic with both codes
    /// ```
    pub fn add(self, other: Money) -> Money {
        if self.currency != other.currency {
            panic!(
                "currency mismatch:\n  left:  {} {}\n  right: {} {}\n  convert one side first (no rate for {}->{})",
                self.cents, self.currency, other.cents, other.currency, other.currency, self.currency
            );
        }
        Money::new(self.cents + other.cents, self.currency)
    }

    /// Splits an amount into `n` parts that add up to the whole.
    ///
    /// ```
    /// let parts = money::Money::new(1000, "EUR").split(3);
    /// let sum: i64 = parts.iter().map(|m| m.cents).sum();
    /// assert_eq!(sum, 1000, "split lost cents");
    /// ```
    pub fn split(self, n: i64) -> Vec<Money> {
        (0..n).map(|_| Money::new(self.cents / n, self.currency)).collect() // BUG: remainder lost
    }

    /// Formats with two decimals.
    ///
    /// ```
    /// assert_eq!(money::Money::new(705, "EUR").to_string(), "7.05 EUR");
    /// ```
    pub fn to_string(&self) -> String {
        format!("{}.{} {}", self.cents / 100, self.cents % 100, self.currency) // BUG: no zero padding
    }

    /// Parses "12.34 EUR".
    ///
    /// ```
    /// let m = money::Money::parse("12.34 EUR")?;
    /// assert_eq!(m.cents, 1234);
    /// # Ok::<(), String>(())
    /// ```
    pub fn parse(s: &str) -> Result<Money, String> {
        let (num, cur) = s.split_once(' ').ok_or("no currency")?;
        let cents = (num.parse::<f64>().map_err(|e| e.to_string())? * 100.0).round() as i64;
        let cur: &'static str = match cur { "EUR" => "EUR", "USD" => "USD", _ => return Err(format!("unknown currency {cur}")) };
        Ok(Money::new(cents, cur))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_even() {
        assert_eq!(Money::new(900, "EUR").split(3)[0].cents, 300);
    }

    #[test]
    fn split_keeps_remainder() {
        let parts = Money::new(1000, "EUR").split(3);
        assert_eq!(parts.iter().map(|m| m.cents).sum::<i64>(), 1000, "remainder of 1000/3 dropped");
    }

    #[test]
    fn add_mixed_currencies() {
        let _ = Money::new(5, "EUR").add(Money::new(7, "GBP"));
    }
}
