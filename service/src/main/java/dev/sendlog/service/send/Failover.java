package dev.sendlog.service.send;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import dev.sendlog.service.accept.Routes;
import dev.sendlog.service.config.GatewaySettings;
import dev.sendlog.service.log.MessageRow;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a routed message goes when its gateway certainly did not take it (issue 29), and each gateway's health as this
 * process sees it: after {@code downAfterFailures} failed submits in a row a gateway is down, and routed messages that
 * may still leave it pass to their route's next gateway without calling it; after {@code probeAfter} one submit is let
 * through as a probe, and a success marks it up again (a failure keeps it down for another {@code probeAfter}).
 * Messages with nowhere else to go still call a gateway that is down: it is their only way out, and their own retries
 * and backoff bound them.
 *
 * <p>Per process, not shared: each send-worker process learns a gateway's health from its own calls within a few
 * submits, and a wrong "down" costs only a failover the message was allowed anyway (its gateway certainly did not take
 * it, because it was not called).
 */
public final class Failover {
    private static final Logger LOG = LoggerFactory.getLogger(Failover.class);

    /** One gateway's health in this process. */
    private static final class Health {
        final int downAfter;
        final long probeAfterNanos;
        final AtomicInteger failuresInARow = new AtomicInteger();
        /** System.nanoTime() until which it is down (no call but a probe); 0 when up. */
        final AtomicLong downUntil = new AtomicLong();
        /** System.nanoTime() when the current probe was let through; 0 when none is out. */
        final AtomicLong probingSince = new AtomicLong();

        final Counter failovers;
        final Counter markedDown;

        Health(String gateway, int downAfter, Duration probeAfter, MetricRegistry metrics) {
            this.downAfter = downAfter;
            this.probeAfterNanos = probeAfter.toNanos();
            String base = "gateway." + gateway;
            this.failovers = metrics.counter(base + ".failovers");
            this.markedDown = metrics.counter(base + ".marked.down");
            metrics.registerGauge(base + ".down", () -> downUntil.get() != 0 ? 1 : 0);
        }
    }

    private final Routes routes;
    private final Map<String, Health> health;

    public Failover(Routes routes, Map<String, GatewaySettings> gateways, MetricRegistry metrics) {
        this.routes = routes;
        Map<String, Health> built = new HashMap<>();
        gateways.forEach((name, g) -> built.put(
                name,
                new Health(name, g.downAfterFailures, Duration.ofMillis(g.probeAfter.toMilliseconds()), metrics)));
        this.health = Map.copyOf(built);
    }

    /** No routes and no health kept: every message stays on its gateway (tests of other rules). */
    public static Failover none(String defaultGateway) {
        return new Failover(Routes.none(defaultGateway), Map.of(), new MetricRegistry());
    }

    /** The gateway a routed message at {@code current} passes to, or null (not routed, or {@code current} is its last). */
    public String next(MessageRow row, String current) {
        return row.routed() ? routes.next(row.tenant(), row.recipient(), current) : null;
    }

    /**
     * Whether a call to {@code gateway} should be skipped because it is down. False while it is up, and for the one
     * caller that takes the probe once {@code probeAfter} has passed (that caller must report its outcome).
     */
    public boolean isDown(String gateway) {
        Health h = health.get(gateway);
        if (h == null) {
            return false;
        }
        long until = h.downUntil.get();
        if (until == 0) {
            return false;
        }
        if (System.nanoTime() - until < 0) {
            return true;
        }
        // The first caller past the time probes; the rest stay away. A probe that never reports (its job handed back
        // before the call) is replaced after another probeAfter.
        long now = System.nanoTime();
        long since = h.probingSince.get();
        boolean free = since == 0 || now - since > h.probeAfterNanos;
        return !(free && h.probingSince.compareAndSet(since, now == 0 ? 1 : now));
    }

    /** A submit to {@code gateway} was answered with an acceptance or a refusal of the message itself: it is up. */
    public void answered(String gateway) {
        Health h = health.get(gateway);
        if (h == null) {
            return;
        }
        h.failuresInARow.set(0);
        if (h.downUntil.getAndSet(0) != 0) {
            LOG.info("gateway {} answers again; marked up", gateway);
        }
        h.probingSince.set(0);
    }

    /** A submit to {@code gateway} failed (any transient outcome): a run of them marks it down. */
    public void failed(String gateway) {
        Health h = health.get(gateway);
        if (h == null || h.downAfter == 0) {
            return;
        }
        int run = h.failuresInARow.incrementAndGet();
        boolean wasProbe = h.probingSince.getAndSet(0) != 0;
        if (run >= h.downAfter || wasProbe) {
            long until = System.nanoTime() + h.probeAfterNanos;
            if (h.downUntil.getAndSet(until == 0 ? 1 : until) == 0) {
                h.markedDown.inc();
                LOG.warn(
                        "gateway {} marked down after {} failed submits in a row; probed again in {} ms",
                        gateway,
                        run,
                        h.probeAfterNanos / 1_000_000);
            }
        }
    }

    /** Counts a failover away from {@code gateway}. */
    public void failedOver(String gateway) {
        Health h = health.get(gateway);
        if (h != null) {
            h.failovers.inc();
        }
    }

    /** Whether this process sees {@code gateway} as down now (the health check and the console). */
    public boolean seenDown(String gateway) {
        Health h = health.get(gateway);
        return h != null && h.downUntil.get() != 0;
    }
}
