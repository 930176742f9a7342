package dev.sendlog.service.health;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheck;
import java.time.Duration;
import org.jooq.DSLContext;
import org.jooq.Record;

/**
 * The oldest open writing transaction anywhere in the cluster: while it is open, no tail reader (poller, projector)
 * can pass its xid, so every later event waits. Exported as a gauge too.
 */
public final class TransactionAgeHealthCheck extends HealthCheck {
    private final DSLContext dsl;
    private final Duration max;

    public TransactionAgeHealthCheck(DSLContext dsl, Duration max, MetricRegistry metrics) {
        this.dsl = dsl;
        this.max = max;
        metrics.registerGauge("database.oldest.write.transaction.seconds", () -> oldest().seconds);
    }

    private record Oldest(double seconds, String who) {}

    private Oldest oldest() {
        Record r = dsl.fetchOne("""
                SELECT coalesce(extract(epoch FROM now() - xact_start), 0)::float8 AS age,
                       coalesce(datname, '?') || ' pid ' || pid || ' (' || coalesce(application_name, '') || ')' AS who
                FROM pg_stat_activity WHERE backend_xid IS NOT NULL ORDER BY xact_start LIMIT 1""");
        return r == null ? new Oldest(0, "none") : new Oldest(r.get("age", Double.class), r.get("who", String.class));
    }

    @Override
    protected Result check() {
        Oldest o = oldest();
        if (o.seconds > max.toSeconds()) {
            return Result.unhealthy("a writing transaction has been open " + Math.round(o.seconds) + " s (limit "
                    + max.toSeconds() + " s): " + o.who + "; it holds every tail reader back");
        }
        return Result.healthy("oldest writing transaction " + Math.round(o.seconds * 1000) + " ms");
    }
}
