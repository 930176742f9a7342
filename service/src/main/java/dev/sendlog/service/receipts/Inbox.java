package dev.sendlog.service.receipts;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import dev.sendlog.service.core.GroupCommit;
import dev.sendlog.service.queue.JobStream;
import io.dropwizard.lifecycle.Managed;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jooq.DSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The callback inbox: a verified callback is stored raw (group commit) before it is answered, then queued on
 * the callback stream. Queueing is best effort: a row that did not make it onto the stream is queued again by
 * the sweeper, so a Redis outage delays receipts but loses none.
 */
public final class Inbox implements Managed {
    private static final Logger LOG = LoggerFactory.getLogger(Inbox.class);
    private static final String INSERT_SQL = "INSERT INTO callback_inbox (gateway, received_at, body) VALUES (?, ?::timestamptz, ?) RETURNING id";

    private final DSLContext dsl;
    private final JobStream stream;
    private final InstantSource clock;
    private final GroupCommit<InboxItem> commits;
    private final Counter stored;
    private final Counter queueFailures;

    public Inbox(DSLContext dsl, JobStream stream, InstantSource clock, int writers, MetricRegistry metrics) {
        this.dsl = dsl;
        this.stream = stream;
        this.clock = clock;
        this.commits = new GroupCommit<>("inbox", this::write, writers, 500, 0, 50_000, metrics);
        this.stored = metrics.counter("callbacks.stored");
        this.queueFailures = metrics.counter("callbacks.queue.failures");
    }

    /** Stores the raw callback durably; returns its inbox id only after the commit. */
    public long store(String gateway, byte[] body) throws InterruptedException, ExecutionException, TimeoutException {
        InboxItem item = new InboxItem(gateway, body, clock.instant());
        if (!commits.offer(item)) {
            throw new IllegalStateException("the inbox queue is full");
        }
        return item.id().get(30, TimeUnit.SECONDS);
    }

    private void write(List<InboxItem> batch) {
        List<Long> ids = new ArrayList<>(batch.size());
        try {
            dsl.transaction(cfg -> cfg.dsl().connection(c -> {
                try (PreparedStatement ps = c.prepareStatement(INSERT_SQL)) {
                    for (InboxItem item : batch) {
                        ps.setString(1, item.gateway());
                        ps.setString(2, item.receivedAt().toString());
                        ps.setBytes(3, item.body());
                        try (ResultSet rs = ps.executeQuery()) {
                            rs.next();
                            ids.add(rs.getLong(1));
                        }
                    }
                }
            }));
        } catch (RuntimeException e) {
            LOG.warn("storing {} callbacks failed: {}", batch.size(), e.toString());
            batch.forEach(item -> item.id().completeExceptionally(e));
            return;
        }
        stored.inc(batch.size());
        try {
            stream.publish(ids.stream().map(id -> new CallbackJob(id).toFields()).toList());
        } catch (RuntimeException e) {
            queueFailures.inc(batch.size());
            LOG.warn("queueing {} stored callbacks failed; the sweeper queues them again: {}", batch.size(), e.toString());
        }
        for (int i = 0; i < batch.size(); i++) {
            batch.get(i).id().complete(ids.get(i));
        }
    }

    @Override
    public void start() {
        commits.start();
    }

    @Override
    public void stop() throws InterruptedException {
        commits.stop();
    }
}
