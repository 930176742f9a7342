package dev.sendlog.service.health;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheck;
import dev.sendlog.service.queue.QueueConnection;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.models.stream.PendingMessages;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Workers consuming: the oldest job of a stream that is not acknowledged yet, whether still unread or read and
 * in progress, is younger than the threshold. Entry ids carry Redis's clock in milliseconds, so the age needs
 * no extra bookkeeping. Exported as a gauge too.
 */
public final class QueueHealthCheck extends HealthCheck {
    private final QueueConnection connection;
    private final String stream;
    private final String group;
    private final Duration max;

    public QueueHealthCheck(
            QueueConnection connection,
            String stream,
            String group,
            Duration max,
            MetricRegistry metrics,
            String jobType) {
        this.connection = connection;
        this.stream = stream;
        this.group = group;
        this.max = max;
        metrics.registerGauge("queue." + jobType + ".oldest.seconds", () -> oldestAgeMs() / 1000.0);
    }

    @Override
    protected Result check() {
        long ageMs = oldestAgeMs();
        long length = connection.sync().xlen(stream);
        if (ageMs > max.toMillis()) {
            return Result.unhealthy("oldest unacknowledged " + group + " job is " + ageMs / 1000 + " s old (limit "
                    + max.toSeconds() + " s), " + length + " entries in the stream: workers are not consuming");
        }
        return Result.healthy(length + " entries, oldest unacknowledged " + ageMs + " ms old");
    }

    /** Age of the oldest entry not yet acknowledged (0 when the stream is empty or missing). */
    long oldestAgeMs() {
        RedisClusterCommands<String, String> redis = connection.sync();
        long oldest = Long.MAX_VALUE;
        try {
            PendingMessages pending = redis.xpending(stream, group);
            if (pending.getCount() > 0 && pending.getMessageIds().getLower().getValue() != null) {
                oldest = Math.min(
                        oldest, millisOf(pending.getMessageIds().getLower().getValue()));
            }
            String lastDelivered = null;
            for (Object g : redis.xinfoGroups(stream)) {
                Map<String, Object> info = groupInfo(g);
                if (group.equals(info.get("name"))) {
                    lastDelivered = String.valueOf(info.get("last-delivered-id"));
                }
            }
            List<StreamMessage<String, String>> next = redis.xrange(
                    stream,
                    Range.create(lastDelivered == null ? "-" : "(" + lastDelivered, "+"),
                    io.lettuce.core.Limit.from(1));
            if (!next.isEmpty()) {
                oldest = Math.min(oldest, millisOf(next.getFirst().getId()));
            }
        } catch (io.lettuce.core.RedisCommandExecutionException e) {
            // No stream or no group yet: nothing queued.
            return 0;
        }
        return oldest == Long.MAX_VALUE ? 0 : Math.max(0, System.currentTimeMillis() - oldest);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> groupInfo(Object raw) {
        java.util.Map<String, Object> map = new java.util.HashMap<>();
        List<Object> list = (List<Object>) raw;
        for (int i = 0; i + 1 < list.size(); i += 2) {
            map.put(String.valueOf(list.get(i)), list.get(i + 1));
        }
        return map;
    }

    private static long millisOf(String entryId) {
        int dash = entryId.indexOf('-');
        return Long.parseLong(dash < 0 ? entryId : entryId.substring(0, dash));
    }
}
