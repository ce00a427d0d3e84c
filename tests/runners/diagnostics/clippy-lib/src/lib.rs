//! A ledger written with the lints a first Rust crate often trips (a real clippy capture).

pub fn total(entries: &Vec<i64>) -> i64 {
    let mut sum = 0;
    for i in 0..entries.len() {
        sum = sum + entries[i];
    }
    return sum;
}

pub fn is_unnamed(name: &String) -> bool {
    name.len() == 0
}

pub fn largest(entries: &[i64]) -> Option<i64> {
    let mut best: Option<i64> = None;
    for e in entries.iter() {
        if best.is_none() || *e > best.unwrap() {
            best = Some(*e);
        }
    }
    return best;
}
