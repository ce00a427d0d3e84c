package shop;

import java.util.ArrayList;
import java.util.List;

/** An order with deliberate bugs for the JUnit 5 captures. */
public class Order {
    private final List<long[]> lines = new ArrayList<>();

    public Order add(long unitCents, int qty) {
        if (qty <= 0) throw new IllegalArgumentException("quantity must be positive, got " + qty);
        lines.add(new long[] {unitCents, qty});
        return this;
    }

    public long totalCents() {
        long t = 0;
        for (long[] l : lines) t += l[0];          // BUG: quantity ignored
        return t;
    }

    public String status(int paidCents) {
        return paidCents > totalCents() ? "PAID" : "OPEN";   // BUG: exact payment stays OPEN
    }

    public long lineCents(int i) {
        long[] l = lines.get(i);
        return l[0] * l[1];
    }
}
