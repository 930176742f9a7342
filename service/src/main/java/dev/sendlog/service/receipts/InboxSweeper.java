package dev.sendlog.service.receipts;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import dev.sendlog.service.queue.JobStream;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import org.jooq.DSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Queues again the inbox rows that have no outcome yet: receipts held for a late match, and callbacks stored
 * while Redis could not take their job. Scans from a low-water mark (the oldest row still without an outcome),
 * so its cost follows the open rows, not the whole inbox.
 */
public final class InboxSweeper implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(InboxSweeper.class);
    private static final int BATCH = 1000;
    private static final Duration LOW_WATER_MARGIN = Duration.ofMinutes(5);

    private final DSLContext dsl;
    private final JobStream stream;
    private final InstantSource clock;
    private final Duration minAge;
    private final Counter requeued;
    private long lowWater = -1;

    public InboxSweeper(DSLContext dsl, JobStream stream, InstantSource clock, Duration minAge, MetricRegistry metrics) {
        this.dsl = dsl;
        this.stream = stream;
        this.clock = clock;
        this.minAge = minAge;
        this.requeued = metrics.counter("callbacks.requeued");
    }

    /** Queues again what is open and older than {@code minAge}; returns how many. */
    public synchronized int sweep() {
        if (lowWater < 0) {
            Long first = dsl.fetchValue(org.jooq.impl.DSL.field(
                    "(SELECT min(id) FROM callback_inbox WHERE received_at > now() - interval '7 days')", Long.class));
            lowWater = first == null ? 0 : first;
        }
        List<Long> open = dsl.fetch("""
                        SELECT i.id FROM callback_inbox i
                        WHERE i.id >= ? AND i.received_at <= ?::timestamptz
                          AND NOT EXISTS (SELECT 1 FROM callback_outcomes o WHERE o.inbox_id = i.id)
                        ORDER BY i.id LIMIT ?""", lowWater, clock.instant().minus(minAge).toString(), BATCH)
                .getValues(0, Long.class);
        if (open.isEmpty()) {
            // Ids are taken at insert and commit in any order: the mark only passes rows old enough that no
            // transaction still holding an earlier id can be open (a writer's transaction lasts milliseconds).
            Long max = dsl.fetchValue(org.jooq.impl.DSL.field(
                    "(SELECT max(id) FROM callback_inbox WHERE received_at <= {0}::timestamptz)", Long.class,
                    org.jooq.impl.DSL.val(clock.instant().minus(LOW_WATER_MARGIN).toString())));
            if (max != null) {
                lowWater = Math.max(lowWater, max + 1);
            }
            return 0;
        }
        lowWater = open.getFirst();
        stream.publish(open.stream().map(id -> new CallbackJob(id).toFields()).toList());
        requeued.inc(open.size());
        return open.size();
    }

    @Override
    public void run() {
        try {
            sweep();
        } catch (RuntimeException e) {
            LOG.warn("sweeping the callback inbox failed: {}", e.toString());
        }
    }
}
