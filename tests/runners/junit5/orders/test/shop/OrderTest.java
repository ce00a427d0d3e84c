package shop;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class OrderTest {
    @Test
    void emptyOrderIsFree() {
        assertEquals(0, new Order().totalCents());
    }

    @Test
    @DisplayName("total multiplies by quantity")
    void totalUsesQuantity() {
        assertEquals(1500, new Order().add(500, 3).totalCents(), "order total for 3 x 500 cents");
    }

    @ParameterizedTest(name = "paying {0} cents gives {1}")
    @CsvSource({"900, OPEN", "1000, PAID", "1100, PAID"})
    void status(int paid, String expected) {
        assertEquals(expected, new Order().add(1000, 1).status(paid));
    }

    @Nested
    class Lines {
        @Test
        void lineOutOfRange() {
            assertEquals(0, new Order().lineCents(2));
        }

        @Test
        void rejectsZeroQuantity() {
            assertThrows(IllegalStateException.class, () -> new Order().add(100, 0));
        }
    }
}
