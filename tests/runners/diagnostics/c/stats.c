double mean(const int *values, int n) {
    double total = 0;
    for (int i = 0; i < n; i++) total += values[i];
    return total / n
}

int median(int *values) {
    return sort_values(values)[0];
}
