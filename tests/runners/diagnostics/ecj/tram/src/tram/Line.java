package tram;

import java.io.IOException;
import java.util.List;
import java.util.ArrayList;

/** A tram line with deliberate errors, for real ecj output. */
public class Line {
    private List stops = new ArrayList();
    private int unused = 4;

    public String first() {
        if (stops.isEmpty()) {
            return null;
        }
    }

    public void open() {
        throw new IOException("depot closed");
    }

    public int count() {
        return stops.size() + missing;
    }
}
