fn main() {
    let v = vec![1, 2, 3];
    let mut total = 0;
    for i in 0..v.len() {
        total += v[i];
    }
    if total == total {
        println!("{}", total);
    }
    let s = String::from("x");
    let _n = s.clone().len();
}
