pub struct Ledger {
    entries: Vec<i64>,
}

impl Ledger {
    pub fn total(&self) -> u32 {
        self.entries.iter().sum::<i64>()
    }

    pub fn add(&mut self, amount: i64) {
        self.entries.push(amount);
        balance += amount;
    }

    pub fn last(&self) -> i64 {
        self.entries.last()
    }
}
