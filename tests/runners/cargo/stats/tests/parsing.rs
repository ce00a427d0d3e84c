use stats::parse_samples;

#[test]
fn parses_csv() {
    assert_eq!(parse_samples("1,2.5,3").unwrap(), vec![1.0, 2.5, 3.0]);
}

#[test]
fn tolerates_spaces() {
    let v = parse_samples("1, 2, 3").expect("spaces after commas should be accepted");
    assert_eq!(v.len(), 3);
}

#[test]
fn rejects_words() {
    assert!(parse_samples("1,two").is_err());
}
