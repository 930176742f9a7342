package dev.sendlog.service.queue;

/**
 * Key names. The job type is the hash tag ({@code {send}}), so on a Redis Cluster each job type's keys
 * live on one node, and a prefix separates pipelines (and tests) sharing one Redis.
 */
public final class StreamKeys {
    public static final String SEND_GROUP = "send-workers";
    public static final String CALLBACK_GROUP = "callback-workers";
    public static final String WEBHOOK_GROUP = "webhook-workers";

    private StreamKeys() {}

    public static String send(String prefix) {
        return prefix + "{send}:stream";
    }

    /** The high priority lane's send stream: a hash tag of its own, so on a cluster it may sit on another node. */
    public static String sendHigh(String prefix) {
        return prefix + "{send-high}:stream";
    }

    /**
     * A lane's send stream: the normal lane's is {@link #send}, the high lane's {@link #sendHigh}, a tenant lane's
     * {@code {send-tenant-<tenant>}:stream} (issue 29), each a hash tag of its own.
     */
    public static String sendLane(String prefix, dev.sendlog.events.Lanes.Lane lane) {
        if (!lane.isTenant()) {
            return lane.priority() == dev.sendlog.events.Priority.HIGH ? sendHigh(prefix) : send(prefix);
        }
        return prefix + "{send-" + lane.name() + "}:stream";
    }

    /** Status webhook deliveries (issue 27): a job type, and a hash tag, of their own. */
    public static String webhook(String prefix) {
        return prefix + "{webhook}:stream";
    }

    public static String callback(String prefix) {
        return prefix + "{callback}:stream";
    }
}
