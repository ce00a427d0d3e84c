package text;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Map;
import org.junit.jupiter.api.Test;

class SlugTest {
    @Test
    void lowerCasesAndDashes() {
        assertEquals("hello-world", Slug.slug("Hello World"));
    }

    @Test
    void stripsAccents() {
        assertEquals("creme-brulee", Slug.slug("Crème Brûlée"));
    }

    @Test
    void dropsPunctuation() {
        assertEquals("whats-new", Slug.slug("What's new?"));
    }

    @Test
    void rendersWithPartialVariables() {
        assertEquals("Hi Ada", Slug.render("Hi {name}", Map.of("name", "Ada")));
    }

    @Test
    void groupedChecks() {
        assertAll("slug rules",
            () -> assertEquals("a-b", Slug.slug("A B")),
            () -> assertEquals("tab-sep", Slug.slug("tab\tsep")),
            () -> assertEquals("x-y", Slug.slug("x/y")));
    }
}
