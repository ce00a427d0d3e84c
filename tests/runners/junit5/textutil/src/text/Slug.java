package text;

import java.text.Normalizer;
import java.util.Locale;

/** Slugs and templates with deliberate bugs for the JUnit 5 captures. */
public class Slug {
    public static String slug(String s) {
        String n = Normalizer.normalize(s, Normalizer.Form.NFD).replaceAll("\\p{M}", "");
        return n.toLowerCase(Locale.ROOT).replace(' ', '-');     // BUG: punctuation kept
    }

    public static String render(String template, java.util.Map<String, String> vars) {
        StringBuilder missing = new StringBuilder();
        for (String key : new String[] {"name", "city"}) {
            if (!vars.containsKey(key)) missing.append("\n  - ").append(key);
        }
        if (missing.length() > 0) {
            throw new IllegalStateException("template has unbound variables:" + missing + "\n  (template 'welcome.txt', line 3)");
        }
        return template.replace("{name}", vars.get("name")).replace("{city}", vars.get("city"));
    }
}
