use money::Money;

#[test]
fn pads_cents() {
    assert_eq!(Money::new(1203, "USD").to_string(), "12.03 USD");
}

#[test]
fn parses_usd() {
    assert_eq!(Money::parse("3.50 USD").unwrap().cents, 350);
}

#[test]
fn parse_unknown_currency() {
    let m = Money::parse("3.50 CHF").expect("CHF should parse");
    assert_eq!(m.currency, "CHF");
}
