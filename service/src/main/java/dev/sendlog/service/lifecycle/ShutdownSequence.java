package dev.sendlog.service.lifecycle;

import dev.sendlog.service.publish.ShardOwner;
import dev.sendlog.service.queue.StreamConsumer;
import dev.sendlog.service.send.SendWorker;
import io.dropwizard.lifecycle.Managed;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a process stops (DESIGN.md invariant 20): it hands its work over first, and only then closes its pools.
 *
 * <ol>
 *   <li>intake closed: {@code GET /ready} fails and new API requests are answered 503 with Retry-After;</li>
 *   <li>shards and slot released: the poller stops publishing and gives its shard leases and the replication slot
 *       back, so another poller takes them at once instead of after the lease time;</li>
 *   <li>claiming stopped: the send and callback workers read no more jobs;</li>
 *   <li>provider calls finished: no provider call begins any more; a claimed job that had not called the provider is
 *       handed back (published again at once for another worker), one whose call may have begun is let finish and
 *       record its outcome, up to the grace period. A call still running then keeps its claim, and its message comes
 *       back at the claim deadline with the same idempotency key: sent at least once, charged once;</li>
 *   <li>pools closed: Redis clients and database pools, after every component that uses them has stopped.</li>
 * </ol>
 *
 * The first four run once, on SIGTERM before the HTTP server begins its own graceful stop (so a request that still
 * arrives gets its 503 rather than a refused connection), or else as the first of the application's managed objects
 * to stop. The last runs as the last managed object to stop but the infrastructure. Each stage logs its duration.
 */
public final class ShutdownSequence {
    private static final Logger LOG = LoggerFactory.getLogger(ShutdownSequence.class);

    private final Duration grace;
    private final Intake intake = new Intake();
    private final AtomicBoolean handedOver = new AtomicBoolean();
    private final List<ShardOwner> shardOwners = new ArrayList<>();
    private final List<StreamConsumer> consumers = new ArrayList<>();
    private final List<SendWorker> sendWorkers = new ArrayList<>();
    private final List<AutoCloseable> resources = new ArrayList<>();
    private volatile long startedNanos;

    /** {@code grace}: how long provider calls and jobs in flight are waited for (the server's shutdownGracePeriod). */
    public ShutdownSequence(Duration grace) {
        this.grace = grace;
    }

    public Intake intake() {
        return intake;
    }

    public synchronized void shardOwner(ShardOwner owner) {
        shardOwners.add(owner);
    }

    /** A job type's consumer, and its send worker if it is the send stream's (null for callbacks). */
    public synchronized void consumer(StreamConsumer consumer, SendWorker worker) {
        consumers.add(consumer);
        if (worker != null) {
            sendWorkers.add(worker);
        }
    }

    /** A Redis client or database pool, closed in the last stage, in the order given. */
    public synchronized void closeLast(AutoCloseable resource) {
        resources.add(resource);
    }

    /** To register after every other managed object: stopped first, it hands the work over. */
    public Managed handOverOnStop() {
        return new Managed() {
            @Override
            public void stop() {
                handOver();
            }
        };
    }

    /** To register before anything that uses the pools: stopped after all of them, it closes the pools. */
    public Managed closeOnStop() {
        return new Managed() {
            @Override
            public void stop() {
                closeResources();
            }
        };
    }

    /** Stages 1–4, once; later calls return at once. */
    public void handOver() {
        if (!handedOver.compareAndSet(false, true)) {
            return;
        }
        startedNanos = System.nanoTime();
        LOG.info("shutdown: handing work over (grace {} ms)", grace.toMillis());
        stage("intake closed", () -> {
            intake.close();
            return "new requests get 503";
        });
        stage("shards and slot released", () -> {
            for (ShardOwner owner : owners()) {
                owner.stop();
            }
            return owners().size() + " shard owner(s) stopped";
        });
        stage("claiming stopped", () -> {
            for (StreamConsumer consumer : consumers()) {
                consumer.pauseReading();
            }
            return consumers().size() + " consumer(s) read no more";
        });
        stage("provider calls finished", this::finishInFlight);
        LOG.info("shutdown: work handed over in {} ms", elapsedMs(startedNanos));
    }

    /**
     * After {@link #handOver()}: waits until {@code drain} has passed since intake closed, so load balancers polling
     * {@code GET /ready} see the 503 before the port closes. Returns at once when the hand-over took longer.
     */
    public void drainReadiness(Duration drain) {
        long left = startedNanos + drain.toNanos() - System.nanoTime();
        if (left <= 0) {
            return;
        }
        stage("readiness drained", () -> {
            Thread.sleep(Duration.ofNanos(left)); // a wall-clock wait by design: the load balancers' polling period
            return "/ready answered 503 for " + drain.toMillis() + " ms before the port closes";
        });
    }

    private String finishInFlight() throws InterruptedException {
        long deadline = System.nanoTime() + grace.toNanos();
        int calls = 0;
        int callsLeft = 0;
        long handedBackBefore =
                sendWorkers().stream().mapToLong(SendWorker::handedBack).sum();
        for (SendWorker worker : sendWorkers()) {
            calls += worker.stopCalling();
        }
        for (SendWorker worker : sendWorkers()) {
            callsLeft += worker.awaitCalls(left(deadline));
        }
        // Jobs past their call record its outcome; jobs that had not called hand theirs back.
        int jobsLeft = 0;
        for (StreamConsumer consumer : consumers()) {
            jobsLeft += consumer.awaitIdle(left(deadline));
        }
        long handedBack =
                sendWorkers().stream().mapToLong(SendWorker::handedBack).sum() - handedBackBefore;
        if (callsLeft > 0 || jobsLeft > 0) {
            LOG.warn(
                    "shutdown: {} provider call(s) and {} job(s) still running after the {} ms grace; their messages come "
                            + "back at the claim deadline (same idempotency key)",
                    callsLeft,
                    jobsLeft,
                    grace.toMillis());
        }
        return calls + " call(s) in flight waited for, " + handedBack + " claimed job(s) handed back, " + jobsLeft
                + " job(s) left running";
    }

    /** Stage 5. */
    void closeResources() {
        handOver(); // a stop that skipped the hand-over still hands over first
        stage("pools closed", () -> {
            for (AutoCloseable resource : resourcesToClose()) {
                resource.close();
            }
            return resourcesToClose().size() + " Redis client(s) and database pool set(s) closed";
        });
        LOG.info("shutdown: done in {} ms", elapsedMs(startedNanos));
    }

    private interface Stage {
        String run() throws Exception;
    }

    private static void stage(String name, Stage stage) {
        long started = System.nanoTime();
        try {
            String result = stage.run();
            LOG.info("shutdown stage \"{}\" took {} ms: {}", name, elapsedMs(started), result);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            LOG.warn("shutdown stage \"{}\" interrupted after {} ms", name, elapsedMs(started));
        } catch (Exception e) {
            // The next stages still run: a pool left open would hold the database's connections until the process ends.
            LOG.warn("shutdown stage \"{}\" failed after {} ms: {}", name, elapsedMs(started), e.toString());
        }
    }

    private static Duration left(long deadline) {
        return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
    }

    private static long elapsedMs(long since) {
        return (System.nanoTime() - since) / 1_000_000;
    }

    private synchronized List<ShardOwner> owners() {
        return List.copyOf(shardOwners);
    }

    private synchronized List<StreamConsumer> consumers() {
        return List.copyOf(consumers);
    }

    private synchronized List<SendWorker> sendWorkers() {
        return List.copyOf(sendWorkers);
    }

    private synchronized List<AutoCloseable> resourcesToClose() {
        return List.copyOf(resources);
    }
}
