package locker;

import java.util.Map;
import java.util.HashMap;

/** A parcel locker with deliberate errors, for real ecj output. */
public class Box {
    private Map slots = new HashMap();
    private String label;

    public int free() {
        int n = slots.size();
        return "free: " + n;
    }

    public boolean fits(int width) {
        if (width > 40) return false;
    }
}
