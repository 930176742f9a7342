package dev.sendlog.service.queue;

import java.util.Map;
import java.util.UUID;

/**
 * A send job on the stream: which message and which attempt, the shard and the publisher's lease epoch
 * (the fencing token), and when it was published (for the queue-wait metric). The message itself is read
 * from PostgreSQL by the worker: the log is the truth, the job only points at it.
 */
public record SendJob(UUID messageId, int attempt, short shard, long epoch, long publishedAtMs) {

    public Map<String, String> toFields() {
        return Map.of("m", messageId.toString(), "a", Integer.toString(attempt), "s", Short.toString(shard),
                "e", Long.toString(epoch), "t", Long.toString(publishedAtMs));
    }

    /** Reads a job; throws IllegalArgumentException for an entry that is not one (it is logged and dropped by the caller). */
    public static SendJob fromFields(Map<String, String> f) {
        try {
            return new SendJob(UUID.fromString(f.get("m")), Integer.parseInt(f.get("a")), Short.parseShort(f.get("s")),
                    Long.parseLong(f.get("e")), Long.parseLong(f.get("t")));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not a send job: " + f, e);
        }
    }
}
