package dev.sendlog.service.queue;

import java.util.Map;
import java.util.UUID;

/**
 * A send job on the stream: which message and which attempt, the work event it was published for ({@code workSeq})
 * and the publication that put it there, the shard and the publisher's lease epoch (the fencing token), and when it
 * was published (for the queue-wait metric). The message itself is read from PostgreSQL by the worker: the log is the
 * truth, the job only points at it.
 */
public record SendJob(
        UUID messageId, int attempt, short shard, long epoch, long publishedAtMs, int workSeq, long publication) {

    private static final int PARTS = 7;

    /** One field, {@code j = id|attempt|shard|epoch|publishedAtMs|workSeq|publication}: smaller and cheaper than seven. */
    public Map<String, String> toFields() {
        return Map.of(
                "j",
                messageId + "|" + attempt + "|" + shard + "|" + epoch + "|" + publishedAtMs + "|" + workSeq + "|"
                        + publication);
    }

    /**
     * Reads a job; throws IllegalArgumentException for an entry that is not one (it is logged and dropped by the
     * caller). A job of five parts was published before the lean log: it names no publication, and the timers re-drive
     * its message, whose publication the upgrade recorded.
     */
    public static SendJob fromFields(Map<String, String> f) {
        try {
            String[] p = f.get("j").split("\\|", -1);
            if (p.length != PARTS) {
                throw new IllegalArgumentException("expected " + PARTS + " parts, found " + p.length);
            }
            return new SendJob(
                    UUID.fromString(p[0]),
                    Integer.parseInt(p[1]),
                    Short.parseShort(p[2]),
                    Long.parseLong(p[3]),
                    Long.parseLong(p[4]),
                    Integer.parseInt(p[5]),
                    Long.parseLong(p[6]));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not a send job: " + f, e);
        }
    }
}
