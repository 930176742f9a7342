package dev.sendlog.service.health;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheck;
import java.time.Duration;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/**
 * Timer lag: how long the most overdue publication check, or the most overdue scheduled message (issue 26), has
 * waited (the timers fall behind, or no poller process runs them): the deadlines of the messages it watches, or the
 * message's sendAt, fire that much late. Also exported as a gauge. One probe of the publications' check index and one of
 * the scheduled table's key.
 */
public final class TimerLagHealthCheck extends HealthCheck {
    private final DSLContext dsl;
    private final Duration max;

    /** Ages are taken on the database's clock. */
    public TimerLagHealthCheck(DSLContext dsl, Duration max, MetricRegistry metrics) {
        this.dsl = dsl;
        this.max = max;
        metrics.registerGauge("timers.lag.seconds", () -> lag().toMillis() / 1000.0);
    }

    Duration lag() {
        Double seconds = dsl.fetchValue(DSL.field(
                "(SELECT extract(epoch FROM now() - least((SELECT min(check_at) FROM publications WHERE check_at IS NOT NULL),"
                        + " (SELECT min(due_at) FROM scheduled)))::float8)",
                Double.class));
        return seconds == null ? Duration.ZERO : Duration.ofMillis(Math.max(0, Math.round(seconds * 1000)));
    }

    @Override
    protected Result check() {
        Duration lag = lag();
        if (lag.compareTo(max) > 0) {
            return Result.unhealthy("the timers are " + lag.toSeconds() + " s behind (limit " + max.toSeconds()
                    + " s): deadlines of messages in flight fire late");
        }
        return Result.healthy("timers " + lag.toMillis() + " ms behind");
    }
}
