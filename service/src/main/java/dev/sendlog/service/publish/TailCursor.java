package dev.sendlog.service.publish;

/**
 * A snapshot-safe position in the log: the (xid, position) of the last event consumed. Events are read
 * in (xid, position) order and only below the snapshot's xmin, so one committed late is never skipped.
 */
public record TailCursor(long xid, long position) implements Comparable<TailCursor> {
    public static final TailCursor START = new TailCursor(0, 0);

    @Override
    public int compareTo(TailCursor o) {
        int c = Long.compare(xid, o.xid);
        return c != 0 ? c : Long.compare(position, o.position);
    }
}
