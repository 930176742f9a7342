package dev.sendlog.service.health;

import com.codahale.metrics.CachedGauge;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheck;
import dev.sendlog.service.publish.FeedSlot;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The change-data-capture slot (STACK.md: a slot whose reader stops retains WAL without bound). Gauges: the WAL the
 * slot holds back ({@code cdc.slot.retained.wal.bytes}, from its restart position), how far its confirmed position
 * trails the server's ({@code cdc.slot.lag.bytes}), and whether a process reads it ({@code cdc.slot.active}).
 * Unhealthy when the slot is missing, lost (the server dropped WAL it still needed) or holds back more than the limit.
 */
public final class FeedSlotHealthCheck extends HealthCheck {
    private final FeedSlot slot;
    private final long maxRetainedBytes;
    private final CachedGauge<Optional<FeedSlot.State>> state;

    public FeedSlotHealthCheck(FeedSlot slot, long maxRetainedBytes, MetricRegistry metrics) {
        this.slot = slot;
        this.maxRetainedBytes = maxRetainedBytes;
        this.state = new CachedGauge<>(1, TimeUnit.SECONDS) {
            @Override
            protected Optional<FeedSlot.State> loadValue() {
                return slot.state();
            }
        };
        metrics.registerGauge(
                "cdc.slot.retained.wal.bytes",
                () -> state.getValue().map(FeedSlot.State::retainedWalBytes).orElse(-1L));
        metrics.registerGauge(
                "cdc.slot.lag.bytes",
                () -> state.getValue().map(FeedSlot.State::lagBytes).orElse(-1L));
        metrics.registerGauge(
                "cdc.slot.active",
                () -> state.getValue().map(s -> s.active() ? 1 : 0).orElse(0));
    }

    @Override
    protected Result check() {
        Optional<FeedSlot.State> current = slot.state();
        if (current.isEmpty()) {
            return Result.unhealthy(
                    "replication slot " + slot.name() + " does not exist yet: no poller has taken the feed");
        }
        FeedSlot.State s = current.get();
        String detail = "slot " + slot.name()
                + (s.active() ? " read by " + s.holder() + " (epoch " + s.epoch() + ")" : " not read") + ", retains "
                + s.retainedWalBytes() + " bytes of WAL, confirmed " + s.lagBytes() + " bytes behind";
        if ("lost".equals(s.walStatus())) {
            return Result.unhealthy(detail + "; the server removed WAL the slot still needed (max_slot_wal_keep_size): "
                    + "drop it with `drop-feed-slot` and let a poller create it again");
        }
        if (s.retainedWalBytes() > maxRetainedBytes) {
            return Result.unhealthy(detail + "; more than the limit of " + maxRetainedBytes + " bytes: is any poller "
                    + "reading it? An abandoned slot is dropped with `drop-feed-slot`");
        }
        return Result.healthy(detail);
    }
}
