//! Tiny statistics crate with deliberate bugs, for capturing real `cargo test` failures.

pub fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

pub fn median(xs: &mut Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    xs[xs.len() / 2] // bug: even length not averaged
}

pub fn percentile(xs: &[u32], p: usize) -> u32 {
    let mut v = xs.to_vec();
    v.sort();
    v[p * v.len() / 100] // bug: p == 100 is out of bounds
}

pub fn parse_samples(s: &str) -> Result<Vec<f64>, String> {
    s.split(',').map(|t| t.parse::<f64>().map_err(|e| format!("sample {t:?}: {e}"))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_of_three() {
        assert_eq!(mean(&[1.0, 2.0, 3.0]), 2.0);
    }

    #[test]
    fn mean_of_empty_is_zero() {
        let m = mean(&[]);
        assert!(m == 0.0, "mean of an empty slice was NaN, expected 0");
    }

    #[test]
    fn median_even() {
        assert_eq!(median(&mut vec![4.0, 1.0, 3.0, 2.0]), 2.5);
    }

    #[test]
    fn p100_is_max() {
        assert_eq!(percentile(&[5, 1, 9], 100), 9);
    }

    #[test]
    fn p50() {
        assert_eq!(percentile(&[5, 1, 9], 50), 5);
    }
}
