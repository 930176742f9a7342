package dev.sendlog.service.tasks;

import static dev.sendlog.schema.jooq.Tables.IDEMPOTENCY_KEYS;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import java.time.InstantSource;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Removes expired idempotency keys in small batches, so no statement holds many locks or runs long. */
public final class IdempotencyKeyPurge implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(IdempotencyKeyPurge.class);
    private static final int MAX_BATCHES_PER_RUN = 100;

    private final DSLContext dsl;
    private final InstantSource clock;
    private final int batchSize;
    private final Counter purged;

    public IdempotencyKeyPurge(DSLContext dsl, InstantSource clock, int batchSize, MetricRegistry metrics) {
        this.dsl = dsl;
        this.clock = clock;
        this.batchSize = batchSize;
        this.purged = metrics.counter("idempotency.keys.purged");
    }

    /** Deletes expired keys, a batch at a time, until none is left or the per-run cap is reached. */
    public int purge() {
        int total = 0;
        for (int i = 0; i < MAX_BATCHES_PER_RUN; i++) {
            var expired = dsl.select(IDEMPOTENCY_KEYS.TENANT, IDEMPOTENCY_KEYS.CLIENT_KEY)
                    .from(IDEMPOTENCY_KEYS)
                    .where(IDEMPOTENCY_KEYS.EXPIRES_AT.le(clock.instant()))
                    .limit(batchSize)
                    .forUpdate()
                    .skipLocked();
            int n = dsl.deleteFrom(IDEMPOTENCY_KEYS)
                    .where(DSL.row(IDEMPOTENCY_KEYS.TENANT, IDEMPOTENCY_KEYS.CLIENT_KEY)
                            .in(expired))
                    .execute();
            total += n;
            if (n < batchSize) {
                break;
            }
        }
        purged.inc(total);
        return total;
    }

    @Override
    public void run() {
        try {
            purge();
        } catch (Exception e) {
            LOG.error("purging expired idempotency keys failed", e);
        }
    }
}
