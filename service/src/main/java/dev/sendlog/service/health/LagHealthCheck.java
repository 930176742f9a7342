package dev.sendlog.service.health;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheck;
import java.time.Duration;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/** Projector lag: the age of the oldest event the projector has not folded yet. Also exported as a gauge. */
public final class LagHealthCheck extends HealthCheck {
    private final DSLContext dsl;
    private final Duration max;

    /** Ages are taken on the database's clock. */
    public LagHealthCheck(DSLContext dsl, Duration max, MetricRegistry metrics) {
        this.dsl = dsl;
        this.max = max;
        metrics.registerGauge("projector.lag.seconds", () -> lag().toMillis() / 1000.0);
    }

    Duration lag() {
        Double seconds = dsl.fetchValue(DSL.field("""
                (SELECT extract(epoch FROM now() - min(w.at))::float8 FROM shard_leases l CROSS JOIN LATERAL (
                    SELECT e.at FROM message_events e
                    WHERE e.shard = l.shard AND (e.xid, e.position) > (l.project_xid, l.project_position)
                    ORDER BY e.xid, e.position LIMIT 1) w)""", Double.class));
        return seconds == null ? Duration.ZERO : Duration.ofMillis(Math.max(0, Math.round(seconds * 1000)));
    }

    @Override
    protected Result check() {
        Duration lag = lag();
        if (lag.compareTo(max) > 0) {
            return Result.unhealthy("the projector is " + lag.toSeconds() + " s behind (limit " + max.toSeconds()
                    + " s): search and timers see old states");
        }
        return Result.healthy("projector " + lag.toMillis() + " ms behind");
    }
}
