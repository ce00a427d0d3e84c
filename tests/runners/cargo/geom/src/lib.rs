//! Tiny geometry crate with deliberate bugs, for capturing real `cargo test` failures.

pub fn polygon_area(pts: &[(f64, f64)]) -> f64 {
    let mut s = 0.0;
    for i in 0..pts.len() {
        let (x1, y1) = pts[i];
        let (x2, y2) = pts[i + 1]; // bug: no wrap-around
        s += x1 * y2 - x2 * y1;
    }
    s.abs() / 2.0
}

pub fn distance(a: (f64, f64), b: (f64, f64)) -> f64 {
    ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt()
}

pub fn angle_between(a: (f64, f64), b: (f64, f64)) -> f64 {
    let dot = a.0 * b.0 + a.1 * b.1;
    (dot / (distance(a, (0.0, 0.0)) * distance(b, (0.0, 0.0)))).acos()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_3_4_5() {
        assert_eq!(distance((0.0, 0.0), (3.0, 4.0)), 5.0);
    }

    #[test]
    fn square_area() {
        let sq = [(0.0, 0.0), (2.0, 0.0), (2.0, 2.0), (0.0, 2.0)];
        assert_eq!(polygon_area(&sq), 4.0);
    }

    #[test]
    fn angle_with_zero_vector() {
        let a = angle_between((1.0, 0.0), (0.0, 0.0));
        assert!(!a.is_nan(), "angle between (1,0) and the zero vector was NaN");
    }

    #[test]
    fn right_angle() {
        let a = angle_between((1.0, 0.0), (0.0, 1.0));
        assert!((a - std::f64::consts::FRAC_PI_2).abs() < 1e-12);
    }
}
