use geom::distance;

#[test]
fn unit_diagonal() {
    let d = distance((0.0, 0.0), (1.0, 1.0));
    assert_eq!(format!("{d:.3}"), "1.414");
}

#[test]
fn triangle_perimeter() {
    let (a, b, c) = ((0.0, 0.0), (3.0, 0.0), (0.0, 4.0));
    let p = distance(a, b) + distance(b, c) + distance(c, a);
    assert_eq!(p, 13.0, "perimeter of the 3-4-5 triangle");
}
