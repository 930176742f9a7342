package dev.sendlog.service.health;

import com.codahale.metrics.health.HealthCheck;
import java.time.Duration;
import org.jooq.DSLContext;
import org.jooq.Record;

/**
 * Pollers alive and publishing: every shard has a live owner (its lease renewed: the per-shard heartbeat), and the
 * oldest work event not yet passed to the send stream is younger than the threshold.
 */
public final class PollersHealthCheck extends HealthCheck {
    private final DSLContext dsl;
    private final Duration maxUnowned;
    private final Duration maxUnpublished;

    public PollersHealthCheck(DSLContext dsl, Duration maxUnowned, Duration maxUnpublished) {
        this.dsl = dsl;
        this.maxUnowned = maxUnowned;
        this.maxUnpublished = maxUnpublished;
    }

    @Override
    protected Result check() {
        Record leases = dsl.fetchOne("""
                SELECT count(*) FILTER (WHERE owner IS NULL OR expires_at < now()) AS unowned,
                       count(*) FILTER (WHERE (owner IS NULL OR expires_at < now())
                                        AND coalesce(expires_at, '-infinity') < now() - (? * interval '1 millisecond')) AS long_unowned,
                       count(*) AS shards
                FROM shard_leases""", maxUnowned.toMillis());
        long unowned = leases.get("unowned", Long.class);
        long longUnowned = leases.get("long_unowned", Long.class);
        long shards = leases.get("shards", Long.class);
        // Ages are taken on the database's clock, like the leases.
        Double oldestSeconds = dsl.fetchValue(org.jooq.impl.DSL.field("""
                (SELECT extract(epoch FROM now() - min(w.at))::float8 FROM shard_leases l CROSS JOIN LATERAL (
                    SELECT m.accepted_at AS at FROM messages m
                    WHERE m.shard = l.shard AND (m.xid, m.position) > (l.publish_xid, l.publish_position)
                    ORDER BY m.xid, m.position LIMIT 1) w)""", Double.class));
        Double oldestRedriveSeconds = dsl.fetchValue(
                org.jooq.impl.DSL.field("""
                (SELECT extract(epoch FROM now() - min(w.at))::float8 FROM shard_leases l CROSS JOIN LATERAL (
                    SELECT e.at FROM message_events e
                    WHERE {work} AND e.shard = l.shard AND (e.xid, e.position) > (l.publish_xid, l.publish_position)
                    ORDER BY e.xid, e.position LIMIT 1) w)""".replace("{work}", dev.sendlog.events.LogPredicates.WORK), Double.class));
        if (oldestSeconds == null || (oldestRedriveSeconds != null && oldestRedriveSeconds > oldestSeconds)) {
            oldestSeconds = oldestRedriveSeconds;
        }
        Duration age = oldestSeconds == null
                ? Duration.ZERO
                : Duration.ofMillis(Math.max(0, Math.round(oldestSeconds * 1000)));
        if (shards == 0) {
            return Result.unhealthy("no poller has ever started (no shard leases)");
        }
        if (longUnowned > 0) {
            return Result.unhealthy(longUnowned + " of " + shards + " shards have had no live poller for over "
                    + maxUnowned.toSeconds() + " s; oldest unpublished event " + age.toSeconds() + " s old");
        }
        if (age.compareTo(maxUnpublished) > 0) {
            return Result.unhealthy("oldest unpublished event is " + age.toSeconds() + " s old (limit "
                    + maxUnpublished.toSeconds() + " s): the pipeline cannot publish");
        }
        return Result.healthy((shards - unowned) + " of " + shards + " shards owned; oldest unpublished event "
                + age.toMillis() + " ms old" + (oldestSeconds == null ? " (none waiting)" : ""));
    }
}
