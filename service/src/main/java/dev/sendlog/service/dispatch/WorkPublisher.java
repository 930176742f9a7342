package dev.sendlog.service.dispatch;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import dev.sendlog.events.EventCodec;
import dev.sendlog.events.EventType;
import dev.sendlog.events.Published;
import dev.sendlog.events.Redriven;
import dev.sendlog.service.config.PipelineSettings;
import dev.sendlog.service.core.FaultPoint;
import dev.sendlog.service.core.Faults;
import dev.sendlog.service.core.Metrics;
import dev.sendlog.service.db.EventStore;
import dev.sendlog.service.db.NewEvent;
import dev.sendlog.service.queue.JobStream;
import dev.sendlog.service.queue.SendJob;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;
import org.jooq.DSLContext;

/**
 * The part of publishing both feeds share (the polling tail and change data capture): of the work events read, keep
 * those still owed (nothing came after them in their message's log), put them on the send stream with one pipelined
 * round trip, and append their PUBLISHED events in one transaction together with whatever the feed records there
 * (the polling feed's fenced cursors); the transaction commits only once the publish has answered. The feed's own
 * position (cursor or slot) moves only after both.
 */
public final class WorkPublisher {
    private final DSLContext dsl;
    private final EventStore store;
    private final EventCodec codec;
    private final JobStream stream;
    private final PipelineSettings settings;
    private final InstantSource clock;
    private final String actor;
    private final Faults faults;
    private final Timer publishTimer;
    private final Timer appendTimer;
    private final Timer publishRoundTrip;
    private final Counter published;
    private final Counter skipped;

    public WorkPublisher(DSLContext dsl, EventStore store, JobStream stream, PipelineSettings settings, InstantSource clock,
                  String actor, Faults faults, MetricRegistry metrics) {
        this.dsl = dsl;
        this.store = store;
        this.codec = store.codec();
        this.stream = stream;
        this.settings = settings;
        this.clock = clock;
        this.actor = actor;
        this.faults = faults;
        this.publishTimer = Metrics.timer(metrics, "poller.publish");
        this.appendTimer = Metrics.timer(metrics, "poller.append");
        this.publishRoundTrip = Metrics.timer(metrics, "poller.publish.round.trip");
        this.published = metrics.counter("poller.published");
        this.skipped = metrics.counter("poller.skipped.already.handled");
    }

    /** Some rows' transaction has committed but is not visible to this session yet; nothing was published. */
    static final class NotVisibleYet extends RuntimeException {
        NotVisibleYet() {
            super("committed work not visible yet", null, false, false);
        }
    }

    /** Whether the send stream is at its bound: then nothing is published until workers catch up. */
    boolean streamFull() {
        return stream.length() >= settings.maxStreamEntries;
    }

    /**
     * Publishes the owed work among {@code rows}; {@code epochOf} gives the epoch recorded in each PUBLISHED event,
     * {@code alsoInTransaction} runs in the transaction that appends them. Returns how many were published.
     */
    int publish(List<TailRow> rows, ToLongFunction<Short> epochOf, Consumer<DSLContext> alsoInTransaction) {
        if (rows.isEmpty()) {
            return 0;
        }
        Map<UUID, Integer> latest = latestSeqs(rows);
        if (rows.stream().anyMatch(r -> !visible(latest, r))) {
            // Read from the slot but not yet visible here: the walsender can send a transaction as soon as its commit
            // record is flushed, a moment before the committing backend makes it visible. That holds for a REDRIVEN
            // row of a message whose earlier events are visible as much as for a new message: its latest visible seq
            // is then lower than the row's. Skipping it as "handled" would lose it (the slot moves past it, and no
            // timer re-drives work that is waiting to be published); the caller asks again in a moment.
            throw new NotVisibleYet();
        }
        Instant now = clock.instant();
        List<SendJob> jobs = new ArrayList<>();
        List<NewEvent> publishedEvents = new ArrayList<>();
        for (TailRow row : rows) {
            if (!Integer.valueOf(row.seq()).equals(latest.get(row.messageId()))) {
                skipped.inc();
                continue;
            }
            long epoch = epochOf.applyAsLong(row.shard());
            int attempt = attemptOf(row);
            jobs.add(new SendJob(row.messageId(), attempt, row.shard(), epoch, now.toEpochMilli()));
            publishedEvents.add(new NewEvent(row.messageId(), row.seq() + 1, row.shard(), actor, now,
                    new Published(attempt, epoch, now.plusMillis(settings.confirmTimeout.toMilliseconds()))));
        }
        // The publish is sent first and its answer awaited inside the append's transaction, after the PUBLISHED rows and
        // the feed's position are written and before the commit: the two round trips overlap, and still nothing is
        // committed (cursor, slot, PUBLISHED) unless every job is on the stream. A publish that fails or times out rolls
        // the transaction back, and the rows are read and published again.
        long started = System.nanoTime();
        JobStream.Publishing sending = stream.publishStart(jobs.stream().map(SendJob::toFields).toList());
        long sent = System.nanoTime();
        long[] waited = new long[1];
        dsl.transaction(cfg -> {
            alsoInTransaction.accept(cfg.dsl());
            store.append(cfg.dsl(), publishedEvents);
            long waitFrom = System.nanoTime();
            try {
                sending.await();
            } finally {
                waited[0] = System.nanoTime() - waitFrom;
                publishRoundTrip.update(System.nanoTime() - started, TimeUnit.NANOSECONDS);
            }
            faults.at(FaultPoint.BETWEEN_PUBLISH_AND_APPEND);
        });
        long ended = System.nanoTime();
        publishTimer.update(sent - started + waited[0], TimeUnit.NANOSECONDS);
        appendTimer.update(ended - sent - waited[0], TimeUnit.NANOSECONDS);
        published.inc(jobs.size());
        return jobs.size();
    }

    private int attemptOf(TailRow row) {
        if (row.type().equals(EventType.ACCEPTED.name())) {
            return 1;
        }
        Redriven redriven = (Redriven) codec.decode(row.messageId(), EventType.REDRIVEN, row.version(), row.data());
        return redriven.attempt();
    }

    /** Whether this session sees the row itself: its message's latest visible seq is at least the row's. */
    private static boolean visible(Map<UUID, Integer> latest, TailRow row) {
        Integer seq = latest.get(row.messageId());
        return seq != null && seq >= row.seq();
    }

    /** The latest seq of each message: a work event is still owed only while nothing came after it. */
    Map<UUID, Integer> latestSeqs(List<TailRow> rows) {
        UUID[] ids = rows.stream().map(TailRow::messageId).distinct().toArray(UUID[]::new);
        Map<UUID, Integer> latest = new HashMap<>();
        dsl.resultQuery("SELECT message_id, max(seq) FROM message_events WHERE message_id = ANY(?) GROUP BY message_id",
                (Object) ids).forEach(r -> latest.put(r.get(0, UUID.class), r.get(1, Integer.class)));
        return latest;
    }
}
