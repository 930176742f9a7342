package dev.sendlog.service.publish;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.MetricRegistry;
import dev.sendlog.service.log.LeaseLostException;
import dev.sendlog.service.metrics.Metrics;
import io.dropwizard.lifecycle.Managed;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a poller process does for the shards it owns, each on its own thread so a slow one never delays
 * another: renew leases (at a third of the lease time), publish work (the latency-critical loop, one per priority
 * lane so a normal backlog's rounds never delay high work), fire timers (the
 * publications' checks, shared with every other poller process). Gives its shards back on a clean shutdown.
 */
public final class ShardOwner implements Managed {
    private static final Logger LOG = LoggerFactory.getLogger(ShardOwner.class);
    /** How often a poller looks for a shard given back between its renewals. */
    private static final long UNOWNED_LOOK_MS = 250;

    private static final String TIMERS = "timers";

    private final ShardLeases leases;
    /** One per polled lane, each on its own thread; with the change-data-capture feed only the high lane's. */
    private final List<Poller> pollers;

    private final CdcFeed cdcFeed;
    private final Round timers;
    private final Duration leaseTtl;
    private final int maxBatchesPerRound;
    private final int idlePollMs;
    private final int timerIntervalMs;
    private final Histogram batchesPerRound;
    private final com.codahale.metrics.Timer roundTimer;
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean running;

    /** {@code cdcFeed} null: work is found by polling the log; otherwise the feed reads it from the slot. */
    public ShardOwner(
            ShardLeases leases,
            List<Poller> pollers,
            CdcFeed cdcFeed,
            Round timers,
            Duration leaseTtl,
            int maxBatchesPerRound,
            int idlePollMs,
            int timerIntervalMs,
            MetricRegistry metrics) {
        this.leases = leases;
        this.pollers = List.copyOf(pollers);
        this.cdcFeed = cdcFeed;
        this.timers = timers;
        this.leaseTtl = leaseTtl;
        this.maxBatchesPerRound = maxBatchesPerRound;
        this.idlePollMs = idlePollMs;
        this.timerIntervalMs = timerIntervalMs;
        this.batchesPerRound = Metrics.histogram(metrics, "poller.batches.per.round");
        this.roundTimer = Metrics.timer(metrics, "poller.round");
    }

    @Override
    public synchronized void start() {
        running = true;
        leases.init();
        leases.refresh();
        long renewEveryNanos = leaseTtl.toNanos() / 3;
        long[] nextRenewal = {System.nanoTime() + renewEveryNanos};
        threads.add(loop("shard-leases", Math.min(UNOWNED_LOOK_MS, leaseTtl.toMillis() / 3), () -> {
            // Renew at a third of the lease; between renewals, take a shard another poller gave back at once (a rolling
            // restart hands its shards over in well under a second instead of stalling them for the renewal interval).
            if (System.nanoTime() - nextRenewal[0] >= 0 || leases.unownedShard()) {
                leases.refresh();
                nextRenewal[0] = System.nanoTime() + renewEveryNanos;
            }
            return false;
        }));
        if (cdcFeed != null) {
            threads.add(Thread.ofPlatform().name("cdc-feed").daemon(true).start(() -> cdcFeed.run(() -> running)));
            // The feed publishes the normal lane; the shard owner keeps those shards' publish cursors past what is
            // already handled. The high lane is polled: the slot is one ordered stream, which a normal backlog at its
            // stream's bound holds back, and high work must not wait behind it.
            threads.add(loop("publish-cursors", 1000, () -> {
                // One poller follows: every poller reads the same leases, and the slot's lane is the normal one.
                return !pollers.isEmpty() && pollers.get(0).follow() > 0;
            }));
        }
        for (Poller poller : pollers) {
            threads.add(Thread.ofPlatform().name(poller.name()).daemon(true).start(() -> publishLoop(poller)));
        }
        threads.add(loop(TIMERS, timerIntervalMs, () -> drain(timers::fireSome)));
    }

    /** Stops owning shards (they move to other pollers at once) until {@link #resume}; for draining a node. */
    public synchronized void pause() throws InterruptedException {
        if (running) {
            stop();
        }
    }

    public synchronized void resume() {
        if (!running) {
            start();
        }
    }

    /**
     * Stops publishing and timers, ends the slot's connection (so another poller can take the slot) and gives every shard
     * back. Once stopped, stopping again does nothing: the shutdown sequence stops it before the application's
     * lifecycle does.
     */
    @Override
    public synchronized void stop() throws InterruptedException {
        if (!running && threads.isEmpty()) {
            return;
        }
        running = false;
        if (cdcFeed != null) {
            cdcFeed.close(); // a read blocked on the replication connection returns
        }
        threads.forEach(Thread::interrupt);
        // What publishes or renews must have stopped before the shards are given back; the timers (shared by every
        // poller, not per shard) are awaited after, so the shards move without waiting for a timer round to end.
        for (Thread t : threads) {
            if (!t.getName().equals(TIMERS)) {
                t.join(TimeUnit.SECONDS.toMillis(10));
            }
        }
        try {
            leases.releaseAll();
        } catch (RuntimeException e) {
            LOG.warn("releasing shards at shutdown failed; they move after the lease time: {}", e.toString());
        }
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(10));
        }
        threads.clear();
    }

    /** The publisher drains: batches follow each other while pages come back full, up to the cap per round. */
    private void publishLoop(Poller poller) {
        long failurePauseMs = 100;
        while (running) {
            try {
                int batches = 0;
                Poller.Batch batch;
                long roundStart = System.nanoTime();
                do {
                    batch = poller.batch();
                    batches++;
                } while (running && batch.full() && !batch.backpressure() && batches < maxBatchesPerRound);
                batchesPerRound.update(batches);
                if (batches > 1 || batch.read() > 0) {
                    roundTimer.update(System.nanoTime() - roundStart, TimeUnit.NANOSECONDS);
                }
                failurePauseMs = 100;
                if (batch.backpressure()) {
                    pause(200);
                } else if (!batch.full()) {
                    idle(poller);
                }
            } catch (LeaseLostException e) {
                leases.lost(e.shard());
            } catch (Exception e) {
                LOG.warn("publishing failed; retrying in {} ms: {}", failurePauseMs, e.toString());
                pause(failurePauseMs);
                failurePauseMs = Math.min(5_000, failurePauseMs * 2);
            }
        }
    }

    private interface Step {
        boolean run() throws Exception;
    }

    /**
     * One round of the timers of the shards this process owns ({@code Timers::fireSome}): true when a full page was
     * handled and more may be waiting.
     */
    @FunctionalInterface
    public interface Round {
        boolean fireSome();
    }

    private static boolean drain(Step step) throws Exception {
        for (int i = 0; i < 50 && step.run(); i++) {
            // a full page means more is waiting: keep going, up to the cap
        }
        return false;
    }

    private Thread loop(String name, long intervalMs, Step step) {
        return Thread.ofPlatform().name(name).daemon(true).start(() -> {
            while (running) {
                try {
                    boolean more = step.run();
                    if (!more) {
                        pause(intervalMs);
                    }
                } catch (LeaseLostException e) {
                    leases.lost(e.shard());
                } catch (Exception e) {
                    LOG.warn("{} failed; retrying in {} ms: {}", name, intervalMs, e.toString());
                    pause(intervalMs);
                }
            }
        });
    }

    private void idle(Poller poller) {
        try {
            poller.awaitWork();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }

    private void pause(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }

    /** For tests and tools: whether the loops are running. */
    public boolean isRunning() {
        return running;
    }
}
