package dev.sendlog.service.queue;

import java.util.Map;
import java.util.UUID;

/**
 * A send job on the stream: which message and which attempt, the shard and the publisher's lease epoch
 * (the fencing token), and when it was published (for the queue-wait metric). The message itself is read
 * from PostgreSQL by the worker: the log is the truth, the job only points at it.
 */
public record SendJob(UUID messageId, int attempt, short shard, long epoch, long publishedAtMs) {

    /** One field, {@code j = id|attempt|shard|epoch|publishedAtMs}: a smaller entry and a cheaper XADD than five fields. */
    public Map<String, String> toFields() {
        return Map.of("j", messageId + "|" + attempt + "|" + shard + "|" + epoch + "|" + publishedAtMs);
    }

    /** Reads a job; throws IllegalArgumentException for an entry that is not one (it is logged and dropped by the caller). */
    public static SendJob fromFields(Map<String, String> f) {
        try {
            String[] p = f.get("j").split("\\|", -1);
            if (p.length != 5) {
                throw new IllegalArgumentException("expected 5 parts");
            }
            return new SendJob(UUID.fromString(p[0]), Integer.parseInt(p[1]), Short.parseShort(p[2]), Long.parseLong(p[3]),
                    Long.parseLong(p[4]));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not a send job: " + f, e);
        }
    }
}
