package dev.sendlog.service.webhooks;

import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import dev.sendlog.service.queue.JobStream;
import io.dropwizard.lifecycle.Managed;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts owed webhook deliveries on the webhook stream when they are due: leases a batch in one statement (committed
 * first), then publishes its jobs. Any number of processes may run one: the lease takes rows with SKIP LOCKED, and a job
 * names its lease, so a delivery leased twice is attempted by the newer job only. Also samples the backlog (owed count
 * and the oldest) for the metrics and the health check, and purges delivered rows past their keeping.
 */
public final class WebhookDispatcher implements Managed {
    private static final Logger LOG = LoggerFactory.getLogger(WebhookDispatcher.class);
    private static final Duration BACKLOG_EVERY = Duration.ofSeconds(5);
    private static final Duration PURGE_EVERY = Duration.ofMinutes(10);
    private static final int PURGE_BATCH = 5_000;

    private final WebhookDeliveries deliveries;
    private final JobStream stream;
    private final InstantSource clock;
    private final Duration leaseTimeout;
    private final Duration every;
    private final int batch;
    private final Duration keepDelivered;
    private final Meter published;
    private final AtomicReference<WebhookDeliveries.Backlog> backlog =
            new AtomicReference<>(new WebhookDeliveries.Backlog(0, null));
    private volatile boolean running;
    private Thread loop;

    public WebhookDispatcher(
            WebhookDeliveries deliveries,
            JobStream stream,
            InstantSource clock,
            Duration leaseTimeout,
            Duration every,
            int batch,
            Duration keepDelivered,
            MetricRegistry metrics) {
        this.deliveries = deliveries;
        this.stream = stream;
        this.clock = clock;
        this.leaseTimeout = leaseTimeout;
        this.every = every;
        this.batch = batch;
        this.keepDelivered = keepDelivered;
        this.published = metrics.meter("webhooks.published");
        metrics.registerGauge("webhooks.owed", () -> backlog.get().owed());
        metrics.registerGauge(
                "webhooks.oldest.owed.seconds", () -> oldestOwedAge().toSeconds());
    }

    /** How long the oldest owed delivery has been owed, as last sampled; zero when none is. */
    public Duration oldestOwedAge() {
        Instant oldest = backlog.get().oldestOwedSince();
        return oldest == null
                ? Duration.ZERO
                : Duration.between(oldest, clock.instant()).abs();
    }

    public WebhookDeliveries.Backlog backlog() {
        return backlog.get();
    }

    @Override
    public void start() {
        running = true;
        stream.ensureGroup();
        sampleBacklog();
        loop = Thread.ofPlatform().name("webhook-dispatcher").daemon(true).start(this::run);
    }

    @Override
    public void stop() throws InterruptedException {
        running = false;
        if (loop != null) {
            loop.interrupt();
            loop.join(TimeUnit.SECONDS.toMillis(5));
        }
    }

    private void run() {
        long nextBacklog = 0;
        long nextPurge = System.nanoTime() + PURGE_EVERY.toNanos();
        while (running) {
            try {
                int n = dispatchOnce();
                long now = System.nanoTime();
                if (now >= nextBacklog) {
                    sampleBacklog();
                    nextBacklog = now + BACKLOG_EVERY.toNanos();
                }
                if (now >= nextPurge) {
                    purge();
                    nextPurge = now + PURGE_EVERY.toNanos();
                }
                if (n < batch) {
                    Thread.sleep(every.toMillis());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                LOG.warn(
                        "webhook dispatch failed; trying again in 1 s (leased deliveries come back with their lease): {}",
                        e.toString());
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** Leases the deliveries due now and publishes their jobs; returns how many. */
    public int dispatchOnce() {
        List<WebhookDeliveries.Leased> leased = deliveries.lease(clock.instant(), leaseTimeout, batch);
        if (leased.isEmpty()) {
            return 0;
        }
        List<Map<String, String>> jobs = new ArrayList<>(leased.size());
        for (WebhookDeliveries.Leased l : leased) {
            jobs.add(Map.of(
                    WebhookWorker.MESSAGE,
                    l.messageId().toString(),
                    WebhookWorker.SEQ,
                    Integer.toString(l.seq()),
                    WebhookWorker.TENANT,
                    l.tenant(),
                    WebhookWorker.LEASE,
                    Integer.toString(l.lease())));
        }
        stream.publish(jobs);
        published.mark(jobs.size());
        return jobs.size();
    }

    public void sampleBacklog() {
        try {
            backlog.set(deliveries.backlog());
        } catch (RuntimeException e) {
            LOG.warn("reading the webhook backlog failed: {}", e.toString());
        }
    }

    private void purge() {
        Instant before = clock.instant().minus(keepDelivered);
        int n;
        do {
            n = deliveries.purgeDelivered(before, PURGE_BATCH);
        } while (running && n == PURGE_BATCH);
    }
}
